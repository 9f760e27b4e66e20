import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { pushFile, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { launchChromium, screenshot, signedInPage } from './browser.ts';

/**
 * The Storage page shows the project's figures as GET /usage answers them, a chart of its history,
 * the breakdown by extension on request, and lets an owner set the project's own quota, showing the
 * server's refusal of one above the operator's. It follows the live feed: an obliteration shows at once.
 */
describe('storage page in Chromium', () => {
  let stack: TestStack;
  let browser: Browser;
  let owner: SeededProject;
  let page: Page;

  const usage = async () => (await owner.api.get(`/api/v1/projects/${owner.projectId}/usage`)).body as { history: unknown[]; quota: unknown };
  const figure = (name: string) => page.getByRole('group', { name, exact: true });

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startTestStack({ bus: 'local' }), launchChromium()]);
    owner = await stack.seed.project({ role: 'owner' });
    // 2,300 logical bytes in three versions; the copy shares the level's object, so two objects store 1,300.
    const level = randomBytes(1000);
    await pushFile(owner.api, owner.projectId, 'Levels/forest.umap', level);
    await pushFile(owner.api, owner.projectId, 'Levels/copy.umap', level);
    await pushFile(owner.api, owner.projectId, 'Textures/rock.png', randomBytes(300));
    const operator = await stack.seed.admin.request('PUT', `/admin/v1/projects/${owner.projectId}/quota`, { bytes: 1600 });
    expect(operator.status).toBe(200);

    page = await signedInPage(browser, stack.seed.admin, owner.userId);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('shows the figures, the quota near its limit and a chart of the history', async () => {
    await page.goto(`${stack.baseUrl}/projects/${owner.projectId}/files`);
    await page.getByRole('tab', { name: 'Storage' }).click();
    await page.waitForURL(/\/storage$/);
    await figure('Logical size').getByText('2.2 KiB').waitFor();
    await figure('Stored').getByText('1.3 KiB').waitFor();
    await figure('Saved by deduplication').getByText('1000 B').waitFor();
    await figure('Saved by deduplication').getByText('43.5 % of the logical size').waitFor();
    await figure('Versions').getByText('3', { exact: true }).waitFor();
    await figure('Objects').getByText('2', { exact: true }).waitFor();
    await figure('Collectable').getByText('0 B').waitFor();

    // 1,300 of 1,600 bytes: past 80 %, so the bar warns.
    await page.getByText("1.3 KiB of 1.6 KiB stored (81.3 %), the server operator's quota").waitFor();
    await expect(page.getByRole('progressbar', { name: 'Quota used' }).getAttribute('aria-valuenow')).resolves.toBe('81.25');
    await page.getByText('Over 80 % of the quota is used.').waitFor();

    const chart = page.getByRole('img', { name: /^Stored and logical bytes by day/ });
    await chart.waitFor();
    const days = (await usage()).history.length;
    expect(days).toBeGreaterThan(0);
    await expect(chart.locator('circle').count()).resolves.toBe(2 * days);
    await expect(chart.locator('polyline').count()).resolves.toBe(2);
    await screenshot(page, 'storage-01-figures');
  });

  it('lists the extensions only when asked', async () => {
    const table = page.getByRole('table', { name: 'Storage by file extension' });
    await expect(table.count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Show by extension' }).click();
    await table.waitFor();
    const rows = table.locator('tbody tr');
    await expect(rows.count()).resolves.toBe(2);
    await expect(rows.nth(0).locator('td').allInnerTexts()).resolves.toEqual(['.umap', '2', '2', '2.0 KiB', '1000 B', '1']);
    await expect(rows.nth(1).locator('td').allInnerTexts()).resolves.toEqual(['.png', '1', '1', '300 B', '300 B', '1']);
  });

  it("lets the owner set the project's quota, showing the most allowed when it is above the operator's", async () => {
    const form = page.getByRole('form', { name: 'Change the quota' });
    await form.getByRole('textbox', { name: 'Project quota' }).fill('2');
    await form.getByRole('combobox', { name: 'Unit' }).selectOption('KiB');
    await form.getByRole('button', { name: 'Set quota' }).click();
    await form.getByRole('alert').waitFor();
    await form.getByText(/^At most 1\.6 KiB \(1.?600 bytes\) here\.$/).waitFor();
    expect((await usage()).quota).toEqual({ bytes: 1600, source: 'operator' });

    await form.getByRole('textbox', { name: 'Project quota' }).fill('1.5');
    await form.getByRole('button', { name: 'Set quota' }).click();
    await page.getByText("1.3 KiB of 1.5 KiB stored (84.6 %), the project's own quota").waitFor();
    expect((await usage()).quota).toEqual({ bytes: 1536, source: 'project' });
    await expect(form.getByRole('alert').count()).resolves.toBe(0);
    await screenshot(page, 'storage-02-own-quota');

    await form.getByRole('button', { name: "Remove the project's quota" }).click();
    await page.getByText("1.3 KiB of 1.6 KiB stored (81.3 %), the server operator's quota").waitFor();
    expect((await usage()).quota).toEqual({ bytes: 1600, source: 'operator' });
  });

  it('shows a member the figures and the quota, without the form', async () => {
    const member = await stack.seed.member(owner.orgId, owner.projectId, 'member', 'Mia Member');
    const tab = await signedInPage(browser, stack.seed.admin, member.userId);
    await tab.goto(`${stack.baseUrl}/projects/${owner.projectId}/storage`);
    await tab.getByRole('group', { name: 'Stored', exact: true }).getByText('1.3 KiB').waitFor();
    await tab.getByText('Only owners and admins change the quota.').waitFor();
    await expect(tab.getByRole('form', { name: 'Change the quota' }).count()).resolves.toBe(0);
    await expect(tab.getByRole('heading', { name: 'Organization quota' }).count()).resolves.toBe(0);
  });

  it("shows the owner the organization's quota and storage by project beside the project's, a deleted one marked", async () => {
    expect((await stack.seed.admin.request('PUT', `/admin/v1/orgs/${owner.orgId}/quota`, { bytes: 2600 })).status).toBe(200);
    const old = await stack.seed.admin.post<{ id: string }>(`/admin/v1/orgs/${owner.orgId}/projects`, { name: 'Old Game', slug: 'old-game' });
    expect((await stack.seed.admin.delete(`/admin/v1/projects/${old.body.id}`)).status).toBe(200);
    await page.goto(`${stack.baseUrl}/projects/${owner.projectId}/storage`);
    await page.getByText("1.3 KiB of 2.5 KiB stored (50.0 %), the server operator's organization quota").waitFor();
    await expect(page.getByRole('progressbar', { name: "Organization's share of its quota" }).getAttribute('aria-valuenow')).resolves.toBe('50');
    const rows = page.getByRole('table', { name: 'Storage by project' }).locator('tbody tr');
    await rows.first().waitFor();
    await expect(rows.count()).resolves.toBe(2);
    await expect(rows.nth(0).locator('td').allInnerTexts()).resolves.toEqual([expect.any(String), '1.3 KiB', '2.2 KiB', '3']);
    // Listed until its purge, when its storage goes.
    await expect(rows.nth(1).locator('td').allInnerTexts()).resolves.toEqual([
      expect.stringMatching(/^Old Game \(deleted; purged after .+\)$/),
      '0 B',
      '0 B',
      '0',
    ]);
  });

  it('refreshes the figures from the live feed when a file is obliterated elsewhere, without a reload', async () => {
    // A project of its own, without a quota: no quota warning can refresh the page instead.
    const other = await stack.seed.project({ role: 'owner' });
    await pushFile(other.api, other.projectId, 'Levels/forest.umap', randomBytes(1000));
    await pushFile(other.api, other.projectId, 'Secrets/keys.bin', randomBytes(300));
    const tab = await signedInPage(browser, stack.seed.admin, other.userId);
    // The feed takes its position before its response starts: from then on no event is missed.
    const feed = tab.waitForResponse((response) => response.url().includes(`/api/v1/projects/${other.projectId}/events?`));
    await tab.goto(`${stack.baseUrl}/projects/${other.projectId}/storage`);
    await feed;
    const versions = tab.getByRole('group', { name: 'Versions', exact: true });
    await versions.getByText('2', { exact: true }).waitFor();
    const obliterate = (body: object) => other.api.post(`/api/v1/projects/${other.projectId}/obliterate`, body);
    const dry = await obliterate({ path: 'Secrets/keys.bin', dryRun: true });
    expect(dry.status).toBe(200);
    expect((await obliterate({ path: 'Secrets/keys.bin', confirmToken: dry.body.confirmToken })).status).toBe(200);
    await versions.getByText('1', { exact: true }).waitFor();
    await tab.context().close();
  });
});
