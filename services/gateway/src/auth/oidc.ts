import * as client from 'openid-client';
import type { Request, Response } from 'express';
import { errors } from '@lode/errors';
import { publicOrigin } from './public-url.ts';
import { readCookie, secureAttribute } from './session-cookie.ts';

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

const CALLBACK_PATH = '/api/v1/session/oidc/callback';

const PENDING_COOKIE = 'lode_oidc';
const PENDING_PATTERN = /^[A-Za-z0-9_-]{20,100}\.[A-Za-z0-9_-]{43,128}$/;

/** What the provider said about the person, for the identity service to link or refuse. */
export interface OidcPerson {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
}

/**
 * OpenID Connect sign-in: authorization code with PKCE (openid-client). The state and the PKCE
 * verifier wait in a short-lived httpOnly cookie between the redirect and the callback, so nothing
 * is kept on a gateway and any replica can finish a sign-in another began.
 */
export class OidcSignIn {
  readonly #settings: OidcSettings;
  readonly #publicUrl: string | undefined;
  #config: Promise<client.Configuration> | undefined;

  /** `publicUrl`: where browsers reach the gateway (LODE_PUBLIC_URL), the base of the redirect URI. */
  constructor(settings: OidcSettings, publicUrl?: string) {
    this.#settings = settings;
    this.#publicUrl = publicUrl;
  }

  async start(req: Request, res: Response): Promise<URL> {
    const config = await this.#configuration();
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.#callbackUrl(req).href,
      scope: 'openid email profile',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    res.append('Set-Cookie', `${PENDING_COOKIE}=${state}.${verifier}; Path=/api/v1/session/oidc; HttpOnly; SameSite=Lax; Max-Age=600${secureAttribute(req)}`);
    return url;
  }

  async finish(req: Request, res: Response): Promise<OidcPerson> {
    res.append('Set-Cookie', `${PENDING_COOKIE}=; Path=/api/v1/session/oidc; HttpOnly; SameSite=Lax; Max-Age=0${secureAttribute(req)}`);
    const pending = pendingOf(req);
    if (!pending) throw errors.unauthorized('The sign-in took too long or began in another browser: start again');
    const config = await this.#configuration();
    // openid-client sends this URL, less its query, as the redirect_uri: it must be the one start() gave,
    // not the URL the request reached this gateway by (another host or scheme behind a proxy).
    const current = this.#callbackUrl(req);
    current.search = new URL(req.originalUrl, current).search;
    let claims: client.IDToken | undefined;
    try {
      const tokens = await client.authorizationCodeGrant(config, current, { pkceCodeVerifier: pending.verifier, expectedState: pending.state });
      claims = tokens.claims();
    } catch (error) {
      throw errors.unauthorized(`The identity provider refused the sign-in: ${error instanceof Error ? error.message : 'unknown error'}`);
    }
    if (!claims) throw errors.unauthorized('The identity provider sent no ID token');
    return {
      issuer: config.serverMetadata().issuer,
      subject: claims.sub,
      email: typeof claims.email === 'string' ? claims.email : null,
      emailVerified: claims.email_verified === true,
    };
  }

  #callbackUrl(req: Request): URL {
    return new URL(`${publicOrigin(req, this.#publicUrl)}${CALLBACK_PATH}`);
  }

  /** Discovered once, on first use; a failed discovery is tried again by the next sign-in. */
  #configuration(): Promise<client.Configuration> {
    this.#config ??= this.#discover().catch((error: unknown) => {
      this.#config = undefined;
      throw error;
    });
    return this.#config;
  }

  async #discover(): Promise<client.Configuration> {
    const issuer = new URL(this.#settings.issuer);
    // A provider on plain http is for development and tests only (a local provider); https otherwise.
    const execute = issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [];
    try {
      return await client.discovery(issuer, this.#settings.clientId, this.#settings.clientSecret, undefined, { execute });
    } catch {
      throw errors.serviceUnavailable('OpenID provider');
    }
  }
}

function pendingOf(req: Request): { state: string; verifier: string } | undefined {
  const value = readCookie(req, PENDING_COOKIE, PENDING_PATTERN);
  if (!value) return undefined;
  const [state, verifier] = value.split('.');
  return { state, verifier };
}
