import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { AppError, errors } from '@lode/errors';
import { sessions } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import { clientAddress, type FailureThrottle } from '../auth/failure-throttle.ts';
import type { OidcSignIn } from '../auth/oidc.ts';
import { clearSessionCookies, sessionToken, setSessionCookies } from '../auth/session-cookie.ts';
import { requireSession, sessionOf } from '../auth/sessions.ts';
import { SIGN_IN_BODY_LIMIT } from '../http/body-limits.ts';
import { jsonBody } from '../http/json-body.ts';
import { parse } from '../http/parse.ts';
import { forPaths } from '../http/route-paths.ts';
import { noStore } from '../http/security-headers.ts';

export const signInBody = z.object({ token: z.string().regex(sessions.TOKEN_PATTERN, 'is not a sign-in link token') });

/**
 * Why a single sign-on was refused, as the code the sign-in page receives in `#error=<code>` and
 * shows in its own words: never the message itself, so a link crafted with `#error=` cannot put an
 * attacker's text on our page (the page shows one generic message for any code it does not know).
 */
const OIDC_REFUSALS = new Map([
  // The sign-in took too long, began in another browser, or the provider refused it.
  ['unauthorized', 'sign_in_failed'],
  // The provider's person is no Lode user (no linked identity, no verified email of one).
  ['forbidden', 'not_a_user'],
]);

/** Where a person signs in (a one-time link or OpenID Connect), reads their session and signs out. */
export function sessionRoutes(deps: { bus: Bus; oidc: OidcSignIn | undefined; throttle: FailureThrottle; readBody: RequestHandler }): RequestHandler {
  const { bus, oidc, throttle } = deps;
  const router = Router();
  // Every answer here is a sign-in with its CSRF token, who is signed in, or the end of a session.
  router.use('/api/v1/session', noStore);
  const session = requireSession(bus);
  const { readBody } = deps;

  // The link's token comes in a JSON body, never a GET: a mail scanner opening the link spends nothing.
  // That body is the credential, so it is read before anyone is known: within a limit for one token.
  // A used, expired or unknown token spends the address's budget of failures (a malformed one, refused
  // unlooked-up, does not); once it is spent, no token from there is looked up until it refills.
  router.post('/api/v1/session', jsonBody(SIGN_IN_BODY_LIMIT), async (req, res) => {
    const { token } = parse(signInBody, req.body);
    const redeem = () => bus.call(sessions.redeemSignInLink, { token });
    const session = await throttle.attempt(throttle.byAddress('sign-in-link', clientAddress(req)), redeem);
    setSessionCookies(req, res, session);
    res.status(201).json({ user: session.user, csrfToken: session.csrfToken });
  });

  router.get('/api/v1/session/options', (_req, res) => {
    res.json({ oidc: oidc !== undefined });
  });

  // Not the CSRF token: the service keeps only its hash, given to the browser once at sign-in.
  router.get('/api/v1/session', session, readBody, (_req, res) => {
    res.json({ user: sessionOf(res).user });
  });

  router.delete('/api/v1/session', session, readBody, async (req, res) => {
    await bus.call(sessions.endSession, { tokenHash: sessions.tokenHash(sessionToken(req) ?? '') });
    clearSessionCookies(req, res);
    res.json({ ended: true });
  });

  router.get('/api/v1/session/oidc/start', async (req, res) => {
    if (!oidc) throw errors.notFound('OpenID Connect sign-in');
    res.redirect(303, (await oidc.start(req, res)).href);
  });

  router.get('/api/v1/session/oidc/callback', async (req, res) => {
    if (!oidc) throw errors.notFound('OpenID Connect sign-in');
    let session: sessions.NewSession;
    try {
      session = await bus.call(sessions.signInWithOidc, await oidc.finish(req, res));
    } catch (error) {
      // A person, not a program, follows this redirect: a refusal goes back to the sign-in page, which explains it.
      const refusal = error instanceof AppError ? OIDC_REFUSALS.get(error.code) : undefined;
      if (!refusal) throw error;
      res.redirect(303, `/sign-in#error=${refusal}`);
      return;
    }
    setSessionCookies(req, res, session);
    res.redirect(303, '/');
  });

  return forPaths(['/api/v1/session/*'], router);
}
