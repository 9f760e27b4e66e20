import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import Provider from 'oidc-provider';
import { createGatewayApp, MemoryWriteLimiter, PROJECT_SERVICES } from '@lode/gateway';
import { closeServer, listen } from '@lode/runtime';
import { createLogger } from '@lode/telemetry';
import { ApiClient, freePort } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { launchChromium, screenshot } from './browser.ts';

const CLIENT = { id: 'lode-dashboard', secret: 'a-test-client-secret-of-enough-length' };

/**
 * OpenID Connect sign-in (authorization code with PKCE) against a real provider started here
 * (oidc-provider with its development login and consent pages), through a gateway configured with it.
 */
describe('dashboard sign-in with OpenID Connect', () => {
  let stack: TestStack;
  let browser: Browser;
  let provider: Server;
  let gateway: Server;
  let gatewayUrl: string;
  /** What the provider claims for a login other than itself, verified or not; unset, the login is the email, verified unless it says "unverified". */
  const claimedEmail = new Map<string, { email: string; verified: boolean }>();

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startTestStack({ bus: 'local' }), launchChromium()]);
    const [providerPort, gatewayPort] = [await freePort(), await freePort()];
    const issuer = `http://127.0.0.1:${providerPort}`;
    gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    provider = new Provider(issuer, {
      clients: [{ client_id: CLIENT.id, client_secret: CLIENT.secret, redirect_uris: [`${gatewayUrl}/api/v1/session/oidc/callback`] }],
      // The login typed on the provider's page is the subject (and, unless claimedEmail says otherwise, the email).
      findAccount: async (_ctx: unknown, sub: string) => ({
        accountId: sub,
        claims: async () => {
          const { email, verified } = claimedEmail.get(sub) ?? { email: sub, verified: !sub.startsWith('unverified') };
          return { sub, email, email_verified: verified };
        },
      }),
      claims: { openid: ['sub'], email: ['email', 'email_verified'] },
      conformIdTokenClaims: false,
      pkce: { required: () => true },
    }).listen(providerPort, '127.0.0.1');
    const { app } = createGatewayApp({
      bus: stack.bus,
      limiter: new MemoryWriteLimiter(),
      logger: createLogger('gateway-oidc-test', 'silent'),
      adminToken: stack.adminToken,
      defaultWriteLimit: { perSecond: 1000, burst: 1000 },
      authCacheMs: 5000,
      bodyLimit: '1mb',
      services: PROJECT_SERVICES,
      oidc: { issuer, clientId: CLIENT.id, clientSecret: CLIENT.secret },
      // Its own connections come from loopback, as a TLS proxy on the same machine would.
      trustProxy: 'loopback',
    });
    gateway = await listen(app, gatewayPort, '127.0.0.1');
  });
  afterAll(async () => {
    await browser?.close();
    if (gateway) await closeServer(gateway);
    provider?.close();
    await stack?.stop();
  });

  async function signInAtProvider(login: string) {
    const context = await browser.newContext();
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    await page.goto(`${gatewayUrl}/sign-in`);
    await page.getByRole('link', { name: 'Sign in with single sign-on' }).click();
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('anything');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    return { context, page };
  }

  it("signs in the admin-made user with the provider's verified email, then by the linked subject alone", async () => {
    const owned = await stack.seed.project({ role: 'owner' });
    const email = `ada-${Date.now()}@studio.example`;
    // Made without an email and given one later, as an operator enabling single sign-on would.
    const ada = await stack.seed.admin.post('/admin/v1/users', { name: 'Ada Lovelace' });
    expect(ada.status).toBe(201);
    expect(await stack.seed.admin.request('PATCH', `/admin/v1/users/${ada.body.id}`, { email })).toMatchObject({ status: 200, body: { email } });
    expect(await stack.seed.admin.post(`/admin/v1/orgs/${owned.orgId}/members`, { userId: ada.body.id, role: 'member' })).toMatchObject({ status: 201 });

    const first = await signInAtProvider(email);
    await first.page.getByRole('heading', { name: 'Projects' }).waitFor();
    await first.page.getByText('Ada Lovelace').waitFor();
    await first.page.locator(`a[href*="${owned.projectId}"]`).waitFor();
    await screenshot(first.page, '12-oidc-signed-in');
    await first.context.close();

    // The first sign-in linked (issuer, subject) to Ada. Now the provider claims an address no Lode
    // user has, unverified: only that link can find her.
    claimedEmail.set(email, { email: `ada.lovelace-${Date.now()}@elsewhere.example`, verified: false });
    const second = await signInAtProvider(email);
    await second.page.getByText('Ada Lovelace').waitFor();
    await second.context.close();
  });

  it('refuses a person whose email is unknown or unverified, and answers 404 where single sign-on is off', async () => {
    for (const login of ['stranger@nowhere.example', 'unverified@studio.example']) {
      const { page, context } = await signInAtProvider(login);
      await page
        .getByRole('alert')
        .getByText(/No Lode user has this verified email/)
        .waitFor();
      expect(new URL(page.url()).pathname).toBe('/sign-in');
      await context.close();
    }
    expect(await new ApiClient(stack.baseUrl).get('/api/v1/session/options')).toMatchObject({ status: 200, body: { oidc: false } });
    expect(await new ApiClient(gatewayUrl).get('/api/v1/session/options')).toMatchObject({ status: 200, body: { oidc: true } });
    expect(await new ApiClient(stack.baseUrl).get('/api/v1/session/oidc/start')).toMatchObject({ status: 404 });
    // A callback that no sign-in began in this browser goes back to the sign-in page with the reason's code.
    const stray = await fetch(`${gatewayUrl}/api/v1/session/oidc/callback?code=x&state=y`, { redirect: 'manual' });
    expect(stray.status).toBe(303);
    expect(stray.headers.get('location')).toBe('/sign-in#error=sign_in_failed');
  });

  it('behind a trusted TLS proxy, redirects back to the https address the browser used and keeps the pending sign-in in a Secure cookie', async () => {
    const start = (headers: Record<string, string>) => fetch(`${gatewayUrl}/api/v1/session/oidc/start`, { redirect: 'manual', headers });
    const proxied = await start({ 'x-forwarded-proto': 'https', 'x-forwarded-host': 'lode.example.com' });
    expect(proxied.status).toBe(303);
    expect(new URL(proxied.headers.get('location')!).searchParams.get('redirect_uri')).toBe('https://lode.example.com/api/v1/session/oidc/callback');
    expect(proxied.headers.get('set-cookie')).toMatch(/^lode_oidc=[\w-]+\.[\w-]+; .*; Secure$/);
    const direct = await start({});
    expect(new URL(direct.headers.get('location')!).searchParams.get('redirect_uri')).toBe(`${gatewayUrl}/api/v1/session/oidc/callback`);
    expect(direct.headers.get('set-cookie')).not.toMatch(/Secure/);
  });
});
