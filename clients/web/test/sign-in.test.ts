import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext } from 'playwright-core';
import { ApiClient, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { launchChromium, screenshot } from './browser.ts';

/** Generous: two cores shared by many runs make a page's first paint slow, never wrong. */
const UI_TIMEOUT = 30_000;
/** What the sign-in page shows for a refusal code it does not know (SignIn.tsx). */
const UNKNOWN_REFUSAL = 'Single sign-on did not finish. Start again.';

/**
 * The sign-in page in a real browser against a real embedded stack: a link opened by someone already
 * signed in, and the refusals a single sign-on sends back in the fragment.
 */
describe('dashboard sign-in page in Chromium', () => {
  let stack: TestStack;
  let browser: Browser;
  let ada: SeededProject;
  let bea: SeededProject;

  const signInLink = async (userId: string): Promise<string> => {
    const link = await stack.seed.admin.post<{ url: string }>(`/admin/v1/users/${userId}/sign-in-links`);
    expect(link.status).toBe(201);
    return link.body.url;
  };
  const newContext = async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(UI_TIMEOUT);
    return { context, tab: await context.newPage() };
  };
  /** Whom the browser's session cookie signs in, asked of the API with that cookie. */
  const signedInAs = async (context: BrowserContext): Promise<string | null> => {
    const response = await context.request.get(`${stack.baseUrl}/api/v1/session`);
    return response.status() === 200 ? ((await response.json()) as { user: { id: string } }).user.id : null;
  };

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startTestStack({ bus: 'local' }), launchChromium()]);
    const org = await stack.seed.project({ role: 'owner' });
    ada = await stack.seed.member(org.orgId, org.projectId, 'member', 'Ada Signed-In');
    bea = await stack.seed.member(org.orgId, org.projectId, 'member', 'Bea Linked');
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it("asks a signed-in person before another's link switches them, and switches only on the button", async () => {
    const { context, tab } = await newContext();
    await tab.goto(await signInLink(ada.userId));
    await tab.getByRole('heading', { name: 'Projects' }).waitFor();
    expect(await signedInAs(context)).toBe(ada.userId);

    // Kept signed in: the link is left unspent and the person stays who they were.
    const declined = await signInLink(bea.userId);
    await tab.goto(declined);
    const ask = tab.getByRole('region', { name: 'Already signed in' });
    await ask.getByText('You are signed in as Ada Signed-In.').waitFor();
    await screenshot(tab, '13-sign-in-switch-confirm');
    expect(await signedInAs(context)).toBe(ada.userId);
    expect(new URL(tab.url()).hash).toBe('');
    await ask.getByRole('button', { name: 'Stay signed in as Ada Signed-In' }).click();
    await tab.getByRole('heading', { name: 'Projects' }).waitFor();
    expect(await signedInAs(context)).toBe(ada.userId);
    const unspent = await new ApiClient(stack.baseUrl).post('/api/v1/session', { token: new URL(declined).hash.replace('#token=', '') });
    expect(unspent.status).toBe(201);

    // A link opened while the sign-in page shows (only the fragment changes) asks too.
    await tab.goto(`${stack.baseUrl}/sign-in`);
    await tab.getByRole('heading', { name: 'Sign in to Lode' }).waitFor();
    await tab.goto(await signInLink(bea.userId));
    await ask.getByText('You are signed in as Ada Signed-In.').waitFor();
    expect(await signedInAs(context)).toBe(ada.userId);
    await ask.getByRole('button', { name: 'Sign in with this link' }).click();
    await tab.getByRole('heading', { name: 'Projects' }).waitFor();
    await tab.getByText('Bea Linked').waitFor();
    expect(await signedInAs(context)).toBe(bea.userId);
    await context.close();
  });

  it('shows a refusal from single sign-on by its code, in our words, never the text the fragment carries', async () => {
    const { context, tab } = await newContext();
    const refusal = tab.getByRole('alert');
    await tab.goto(`${stack.baseUrl}/sign-in#error=not_a_user`);
    await refusal.getByText('No Lode user has this verified email: ask an administrator to add you.').waitFor();
    for (const planted of ['<img src=x onerror=alert(1)>Call 555-0100 to restore access', 'constructor']) {
      await tab.goto(`${stack.baseUrl}/sign-in#error=${encodeURIComponent(planted)}`);
      await tab.reload();
      await refusal.getByText(UNKNOWN_REFUSAL).waitFor();
      expect(await refusal.textContent()).not.toContain(planted);
      expect(await tab.locator('body').textContent()).not.toContain('555-0100');
    }
    await context.close();
  });

  it('signs in by link, then after a reload still writes: the CSRF token outlives the page that received it', async () => {
    const { context, tab } = await newContext();
    await tab.goto(await signInLink(ada.userId));
    await tab.getByRole('heading', { name: 'Projects' }).waitFor();
    await tab.goto(`${stack.baseUrl}/projects/${ada.projectId}/keys`);
    await tab.getByRole('button', { name: 'Create API key' }).click();
    expect(await tab.getByTestId('new-key').textContent()).toMatch(/^lode_\w{40}$/);
    await context.close();
  });
});
