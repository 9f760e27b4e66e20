import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ApiClient, pushFile, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { launchChromium, screenshot } from './browser.ts';

/** Generous: two cores shared by many runs make a page's first paint slow, never wrong. */
const UI_TIMEOUT = 30_000;

/**
 * The dashboard in a real browser against a real embedded stack (issue 21): one Chromium, one page
 * per person, walked through the way a newcomer would.
 */
describe('web dashboard in Chromium', () => {
  let stack: TestStack;
  let browser: Browser;
  let owner: SeededProject;
  let ownerContext: BrowserContext;
  let page: Page;
  let projectId: string;

  const signInLink = async (userId: string): Promise<string> => {
    const link = await stack.seed.admin.post<{ url: string }>(`/admin/v1/users/${userId}/sign-in-links`);
    expect(link.status).toBe(201);
    return link.body.url;
  };

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startTestStack({ bus: 'local' }), launchChromium()]);
    owner = await stack.seed.project({ role: 'owner' });
    ownerContext = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    ownerContext.setDefaultTimeout(UI_TIMEOUT);
    page = await ownerContext.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('serves the app at / with immutable hashed assets, and sends a newcomer to sign in', async () => {
    const index = await fetch(`${stack.baseUrl}/`, { headers: { accept: 'text/html' } });
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const asset = /\/assets\/[\w-]+\.js/.exec(await index.text())?.[0];
    const assetResponse = await fetch(`${stack.baseUrl}${asset}`);
    expect(assetResponse.headers.get('cache-control')).toMatch(/max-age=31536000, immutable/);
    expect(await fetch(`${stack.baseUrl}/api/v1/nothing`, { headers: { accept: 'text/html' } })).toMatchObject({ status: 404 });
    await page.goto(`${stack.baseUrl}/`);
    await page.waitForURL('**/sign-in');
    await page.getByRole('heading', { name: 'Sign in to Lode' }).waitFor();
    await screenshot(page, '01-sign-in');
  });

  it('signs in by link and creates a project', async () => {
    await page.goto(await signInLink(owner.userId));
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    const org = page.getByRole('region', { name: /^Organization / });
    await org.getByLabel('Project name').fill('Forest Game');
    await org.getByLabel('Slug').fill('forest-game');
    await org.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('link', { name: /Forest Game/ }).click();
    await page.getByText('No files on this branch yet').waitFor();
    projectId = /\/projects\/([0-9a-f-]{36})\//.exec(page.url())![1];
    await screenshot(page, '02-projects-empty-files');
  });

  it('creates a key shown once, which then pushes a file through the API that the browser finds, with its history and a download whose SHA-256 matches', async () => {
    await page.getByRole('tab', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Create API key' }).click();
    const key = (await page.getByTestId('new-key').textContent())!;
    expect(key).toMatch(/^lode_\w{40}$/);
    await page.getByRole('table', { name: 'API keys' }).getByText(key.slice(-4)).waitFor();
    await screenshot(page, '03-keys');

    const api = new ApiClient(stack.baseUrl, { authorization: `Bearer ${key}`, 'x-device-id': 'artist-laptop' });
    const bytes = Buffer.from(`forest level ${Date.now()}`);
    const pushed = await pushFile(api, projectId, 'Levels/forest.umap', bytes);
    const commit = await api.post(`/api/v1/projects/${projectId}/commits`, { message: 'Add the forest', fileVersions: [{ fileId: pushed.fileId, action: 'add', version: pushed.version }] });
    expect(commit.status).toBe(201);

    // The commit arrives from the live feed: no reload.
    await page.getByRole('tab', { name: 'Commits' }).click();
    await page.getByRole('link', { name: 'Add the forest' }).waitFor();
    await screenshot(page, '04-commits');
    await page.getByRole('tab', { name: 'Files' }).click();
    await page.getByRole('button', { name: /Levels\// }).click();
    await page.getByRole('link', { name: 'forest.umap' }).click();
    await page.getByRole('table', { name: 'Versions' }).getByText('v1', { exact: true }).waitFor();
    await screenshot(page, '05-file-history');

    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download version 1' }).click();
    const saved = await (await download).path();
    expect(createHash('sha256').update(await readFile(saved)).digest('hex')).toBe(pushed.sha256);
  });

  it('shows a lock taken through the API live, and lets an owner force-release it', async () => {
    const member = await stack.seed.member(owner.orgId, projectId, 'member', 'Mira Member');
    await page.getByRole('tab', { name: 'Locks' }).click();
    await page.getByText('No file is locked.').waitFor();
    const files = await member.api.get(`/api/v1/projects/${projectId}/files`);
    const fileId = files.body.data[0].fileId as string;
    expect(await member.api.post(`/api/v1/projects/${projectId}/locks`, { fileIds: [fileId], note: 'lighting pass' })).toMatchObject({ status: 200 });
    const row = page.getByRole('row', { name: /Levels\/forest\.umap.*Mira Member/ });
    await row.waitFor();
    await screenshot(page, '06-locks');
    for (const [tab, name] of [['Branches', '09-branches'], ['Members', '10-members'], ['Settings', '11-settings']] as const) {
      await page.getByRole('tab', { name: tab }).click();
      await page.getByRole('button', { name: tab === 'Branches' ? 'Create branch' : tab === 'Members' ? 'Add member' : 'Save' }).waitFor();
      if (tab === 'Settings') {
        await page.getByLabel('Payload URL').fill('https://203.0.113.7/hook');
        await page.getByRole('button', { name: 'Add webhook' }).click();
        await page.getByText(/^whsec_/).waitFor();
        await page.getByRole('table', { name: 'Webhooks' }).getByText('https://203.0.113.7/hook').waitFor();
      }
      await screenshot(page, name);
    }
    await page.getByRole('tab', { name: 'Locks' }).click();
    await page.getByRole('button', { name: 'Force release Levels/forest.umap' }).click();
    await page.getByText('No file is locked.').waitFor().catch(async (e: unknown) => { await screenshot(page, '06-locks-failed'); throw e; });
    expect((await member.api.get(`/api/v1/projects/${projectId}/locks`)).body.data).toEqual([]);
  });

  it("keeps a member to their own keys and their own orgs' projects, then signs them out", async () => {
    const member = await stack.seed.member(owner.orgId, projectId, 'member', 'Nils Member');
    const outsider = await stack.seed.project();
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    context.setDefaultTimeout(UI_TIMEOUT);
    const phone = await context.newPage();
    await phone.goto(await signInLink(member.userId));
    await phone.getByRole('heading', { name: 'Projects' }).waitFor();
    await phone.getByRole('link', { name: /Forest Game/ }).waitFor();
    // One org, the member's: the outsider's org and project are not there.
    await expect(phone.getByRole('region', { name: /^Organization / }).count()).resolves.toBe(1);
    await expect(phone.locator(`a[href*="${owner.projectId}"]`).count()).resolves.toBe(1);
    await expect(phone.locator(`a[href*="${outsider.projectId}"]`).count()).resolves.toBe(0);
    await screenshot(phone, '07-member-projects-390px');

    await phone.goto(`${stack.baseUrl}/projects/${projectId}/keys`);
    const keys = phone.getByRole('table', { name: 'API keys' });
    await keys.getByText('Nils Member').waitFor();
    await expect(keys.getByText(owner.key.slice(-4)).count()).resolves.toBe(0);
    await expect(keys.getByRole('row').count()).resolves.toBe(2);
    await screenshot(phone, '08-member-keys-390px');

    await phone.goto(`${stack.baseUrl}/projects/${outsider.projectId}/files`);
    await phone.getByRole('alert').getByText('Project not found').waitFor();

    await phone.getByRole('button', { name: 'Sign out' }).click();
    await phone.waitForURL('**/sign-in');
    await phone.goto(`${stack.baseUrl}/projects/${projectId}/files`);
    await phone.waitForURL('**/sign-in');
    await context.close();
  });
});
