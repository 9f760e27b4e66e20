import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { startTestStack, type TestStack } from '@lode/system/testing';

/** Debian's Chromium (`.ci/run` installs it): Playwright's own browser download cannot work offline. */
const CHROMIUM = process.env.LODE_CHROMIUM ?? '/usr/bin/chromium';

describe('/docs in a browser', () => {
  let stack: TestStack;
  let browser: Browser;
  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('renders the API reference under its Content-Security-Policy, with nothing refused', async () => {
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
    });
    await page.goto(`${stack.baseUrl}/docs`);
    await page.locator('.swagger-ui .info .title').waitFor({ timeout: 30_000 });
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    expect(await page.locator('.opblock').count()).toBeGreaterThan(10);
    expect(refused).toEqual([]);
    await page.close();
  }, 60_000);
});
