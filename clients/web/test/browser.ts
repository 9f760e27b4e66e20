import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { ApiVerbs } from '@lode/testkit';

/** Debian's Chromium (`.ci/run` installs it): Playwright's own browser download cannot work offline. */
export const CHROMIUM = process.env.LODE_CHROMIUM ?? '/usr/bin/chromium';
const SCREENSHOTS = path.resolve(import.meta.dirname, '..', '..', '..', '.ci', 'screenshots');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Writes the page as it is now under .ci/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Generous: two cores shared by many runs make a page's first paint slow, never wrong. */
export const UI_TIMEOUT = 30_000;

/** A browser context of the user's own, signed in by a one-time link the admin API makes, on the projects page. */
export async function signedInPage(browser: Browser, admin: ApiVerbs, userId: string, viewport = { width: 1280, height: 900 }): Promise<Page> {
  const link = await admin.post<{ url: string }>(`/admin/v1/users/${userId}/sign-in-links`);
  if (link.status !== 201) throw new Error(`no sign-in link for ${userId}: ${link.status} ${JSON.stringify(link.body)}`);
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(UI_TIMEOUT);
  const page = await context.newPage();
  await page.goto(link.body.url);
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
  return page;
}
