import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { pushFile, type PushedFile, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { launchChromium, screenshot, signedInPage } from './browser.ts';

/**
 * The Storage page's retention rules: an owner writes a rule, previews what it removes, confirms,
 * and the file's history then shows the removed versions with the rule's reason; a member sees the
 * rules without the form.
 */
describe('retention rules in Chromium', () => {
  let stack: TestStack;
  let browser: Browser;
  let owner: SeededProject;
  let page: Page;
  let level: PushedFile;

  const commit = async (file: PushedFile) => {
    const res = await owner.api.post(`/api/v1/projects/${owner.projectId}/commits`, {
      message: `v${file.version}`,
      fileVersions: [{ fileId: file.fileId, version: file.version, action: 'modify' }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  };

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startTestStack({ bus: 'local' }), launchChromium()]);
    owner = await stack.seed.project({ role: 'owner' });
    // Three committed versions of a level and one of a texture no rule matches.
    for (const size of [100, 200, 300]) {
      level = await pushFile(owner.api, owner.projectId, 'Levels/forest.umap', randomBytes(size));
      await commit(level);
    }
    await commit(await pushFile(owner.api, owner.projectId, 'Textures/rock.png', randomBytes(50)));

    page = await signedInPage(browser, stack.seed.admin, owner.userId);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('saves a rule, previews exactly what it removes, and removes it once confirmed', async () => {
    await page.goto(`${stack.baseUrl}/projects/${owner.projectId}/storage`);
    await page.getByText('No rules: every version is kept.').waitFor();
    const form = page.getByRole('form', { name: 'Change the retention rules' });
    await form.getByRole('button', { name: 'Add a rule' }).click();
    await form.getByRole('button', { name: 'Save rules' }).click();
    await form.getByText(/^Rule 1: give the paths/).waitFor();

    const rule = form.getByRole('group', { name: 'Rule 1' });
    await rule.getByRole('textbox', { name: 'Paths (glob)' }).fill('levels/**');
    await rule.getByRole('textbox', { name: 'Keep last versions' }).fill('1');
    await form.getByRole('button', { name: 'Save rules' }).click();
    await page.getByRole('list', { name: 'Rules in force' }).getByText('keeps the last 1 version').waitFor();
    const saved = await owner.api.get(`/api/v1/projects/${owner.projectId}/retention`);
    expect(saved.body.rules).toEqual([{ glob: 'levels/**', keepLast: 1 }]);

    await page.getByRole('button', { name: 'Preview what the rules remove' }).click();
    const preview = page.getByRole('region', { name: 'Retention preview' });
    await preview.getByRole('group', { name: 'Versions' }).getByText('2', { exact: true }).waitFor();
    const rows = preview.getByRole('table', { name: 'Versions the rules remove' }).locator('tbody tr');
    await expect(rows.count()).resolves.toBe(2);
    await expect(rows.locator('td:nth-child(2)').allInnerTexts()).resolves.toEqual(expect.arrayContaining(['1', '2']));
    await screenshot(page, 'retention-01-preview');

    await page.getByRole('button', { name: 'Remove the previewed versions' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove them' }).click();
    await page
      .getByRole('region', { name: 'Retention run' })
      .getByText(/^Removed /)
      .waitFor();

    const history = await owner.api.get(`/api/v1/projects/${owner.projectId}/files/${level.fileId}/versions`);
    const removed = (history.body.data as { version: number; purged: { reason: string } | null }[]).filter((v) => v.purged !== null);
    expect(removed.map((v) => v.version).sort()).toEqual([1, 2]);
    await page.goto(`${stack.baseUrl}/projects/${owner.projectId}/files/${level.fileId}`);
    const badges = page.getByText(/^removed \(retention/);
    await badges.first().waitFor();
    await expect(badges.count()).resolves.toBe(2);
    await screenshot(page, 'retention-02-history');
  });

  it('shows a member the rules, without the form', async () => {
    const member = await stack.seed.member(owner.orgId, owner.projectId, 'member', 'Mia Member');
    const tab = await signedInPage(browser, stack.seed.admin, member.userId);
    await tab.goto(`${stack.baseUrl}/projects/${owner.projectId}/storage`);
    await tab.getByRole('list', { name: 'Rules in force' }).getByText('levels/**').waitFor();
    await tab.getByText('Only owners and admins change the rules.').waitFor();
    await expect(tab.getByRole('form', { name: 'Change the retention rules' }).count()).resolves.toBe(0);
  });
});
