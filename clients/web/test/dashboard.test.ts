import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { publicEvents, sessions } from '@lode/contracts';
import { ApiClient, pushFile, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { launchChromium, screenshot } from './browser.ts';

/** Generous: two cores shared by many runs make a page's first paint slow, never wrong. */
const UI_TIMEOUT = 30_000;
/** The dashboard's page size (PAGE_SIZE, src/paging.ts): that many Art/ paths filled the root's first page of the flat tree. */
const ONE_PAGE_OF_ART = 100;
/**
 * The operator's write limit, the gateway's default and the identity service's cap alike, as deployed:
 * not the built-in one, so the page cannot be showing that by chance, and high enough not to slow the pushes.
 */
const OPERATOR_LIMIT = { perSecond: 5000, burst: 8000 };

/**
 * The dashboard in a real browser against a real embedded stack: one Chromium, one page
 * per person, walked through the way a newcomer would.
 */
describe('web dashboard in Chromium', () => {
  let stack: TestStack;
  let browser: Browser;
  let owner: SeededProject;
  let ownerContext: BrowserContext;
  let page: Page;
  let projectId: string;
  /** Invited by the owner on the Members page, accepted on the invitee's projects page. */
  const inviteeEmail = `ines-${Date.now()}@example.com`;

  const signInLink = async (userId: string): Promise<string> => {
    const link = await stack.seed.admin.post<{ url: string }>(`/admin/v1/users/${userId}/sign-in-links`);
    expect(link.status).toBe(201);
    return link.body.url;
  };
  /** A browser of the user's own, signed in by a link, on the projects page. */
  const signedIn = async (userId: string, viewport = { width: 1280, height: 800 }) => {
    const context = await browser.newContext({ viewport });
    context.setDefaultTimeout(UI_TIMEOUT);
    const tab = await context.newPage();
    await tab.goto(await signInLink(userId));
    await tab.getByRole('heading', { name: 'Projects' }).waitFor();
    return { context, tab };
  };
  const commitFiles = async (api: ApiClient, message: string, files: { fileId: string; version: number }[]) => {
    const commit = await api.post(`/api/v1/projects/${projectId}/commits`, {
      message,
      fileVersions: files.map((f) => ({ fileId: f.fileId, action: 'add', version: f.version })),
    });
    expect(commit.status, JSON.stringify(commit.body)).toBe(201);
  };

  beforeAll(async () => {
    const environment = { LODE_WRITE_RATE_PER_SECOND: String(OPERATOR_LIMIT.perSecond), LODE_WRITE_RATE_BURST: String(OPERATOR_LIMIT.burst) };
    [stack, browser] = await Promise.all([startTestStack({ bus: 'local', environment, defaultWriteLimit: OPERATOR_LIMIT }), launchChromium()]);
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

  it('creates a key shown once; a commit pushed with it appears in the open commit log without a reload; the file has its path, history and a download whose SHA-256 matches; the key is revoked once confirmed', async () => {
    await page.getByRole('tab', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Create API key' }).click();
    const key = (await page.getByTestId('new-key').textContent())!;
    expect(key).toMatch(/^lode_\w{40}$/);
    await page.getByRole('table', { name: 'API keys' }).getByText(key.slice(-4)).waitFor();
    await screenshot(page, '03-keys');

    // The log is open and empty before the commit exists: it arrives from the live feed.
    await page.getByRole('tab', { name: 'Commits' }).click();
    await page.getByText('No commits on this branch yet.').waitFor();
    const api = new ApiClient(stack.baseUrl, { authorization: `Bearer ${key}`, 'x-device-id': 'artist-laptop' });
    const pushed = await pushFile(api, projectId, 'Levels/forest.umap', Buffer.from(`forest level ${Date.now()}`));
    await commitFiles(api, 'Add the forest', [pushed]);
    await page.getByRole('link', { name: 'Add the forest' }).waitFor();
    await screenshot(page, '04-commits');

    await page.getByRole('tab', { name: 'Files' }).click();
    await page.getByRole('button', { name: /Levels\// }).click();
    await page.getByRole('link', { name: 'forest.umap' }).click();
    await page.getByRole('heading', { name: 'Levels/forest.umap' }).waitFor();
    await page.getByRole('table', { name: 'Versions' }).getByText('v1', { exact: true }).waitFor();
    await screenshot(page, '05-file-history');
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download version 1' }).click();
    const saved = await (await download).path();
    expect(
      createHash('sha256')
        .update(await readFile(saved))
        .digest('hex'),
    ).toBe(pushed.sha256);

    await page.getByRole('tab', { name: 'API keys' }).click();
    const revoke = page.getByRole('button', { name: new RegExp(`^Revoke .*${key.slice(-4)}$`) });
    await revoke.click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    expect((await api.post('/api/v1/auth/validate-key')).status).toBe(200);
    await revoke.click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await page.getByRole('table', { name: 'API keys' }).getByText('revoked').waitFor();
    expect((await api.post('/api/v1/auth/validate-key')).status).toBe(401);
  });

  it('lists a folder from the server: every subfolder with its file count and size, whatever the files before it; the folder path goes to the server', async () => {
    const pusher = await stack.seed.member(owner.orgId, projectId, 'member', 'Pia Pusher');
    const tile = Buffer.from(`one tile ${Date.now()}`);
    const art: { fileId: string; version: number }[] = [];
    // Ten at a time: the same bytes, so all but the first are deduplicated (no upload).
    for (let start = 0; start < ONE_PAGE_OF_ART; start += 10) {
      const names = Array.from({ length: 10 }, (_, i) => `Art/tile-${String(start + i).padStart(3, '0')}.png`);
      art.push(...(await Promise.all(names.map((name) => pushFile(pusher.api, projectId, name, tile)))));
    }
    const zeta = await pushFile(pusher.api, projectId, 'Zeta/end.umap', Buffer.from('the end'));
    await commitFiles(pusher.api, 'A page of art, then the end', [...art, zeta]);

    await page.getByRole('tab', { name: 'Files' }).click();
    const files = page.getByRole('table', { name: 'Files' });
    // A page of Art/ files no longer hides the folders after it in path order: the server lists folders.
    await files.getByRole('row', { name: new RegExp(`Art/\\s*${ONE_PAGE_OF_ART}\\s`) }).waitFor();
    await files.getByRole('button', { name: /Zeta\// }).waitFor();
    await files.getByRole('button', { name: /Levels\// }).waitFor();
    await expect(page.getByRole('button', { name: /Load more/ }).count()).resolves.toBe(0);
    await screenshot(page, '06-files-folders');

    await page.getByLabel('Folder path').fill('/Zeta');
    await page.getByRole('button', { name: 'Go' }).click();
    await files.getByRole('link', { name: 'end.umap' }).waitFor();
    expect(new URL(page.url()).searchParams.get('prefix')).toBe('Zeta/');
  });

  it('shows a lock taken through the API live, and lets an org admin force-release it from their own browser', async () => {
    const member = await stack.seed.member(owner.orgId, projectId, 'member', 'Mira Member');
    const admin = await stack.seed.member(owner.orgId, projectId, 'admin', 'Ari Admin');
    await page.getByRole('tab', { name: 'Locks' }).click();
    await page.getByText('No file is locked.').waitFor();
    const fileId = (await member.api.get(`/api/v1/projects/${projectId}/files?prefix=Levels`)).body.data[0].fileId as string;
    expect(await member.api.post(`/api/v1/projects/${projectId}/locks`, { fileIds: [fileId], note: 'lighting pass' })).toMatchObject({ status: 200 });
    await page.getByRole('row', { name: /Levels\/forest\.umap.*Mira Member/ }).waitFor();
    await screenshot(page, '07-locks');

    const { context, tab } = await signedIn(admin.userId);
    await tab.goto(`${stack.baseUrl}/projects/${projectId}/locks`);
    await tab.getByRole('button', { name: 'Force release Levels/forest.umap' }).click();
    await tab.getByRole('dialog').getByRole('button', { name: 'Force release' }).click();
    await tab
      .getByText('No file is locked.')
      .waitFor()
      .catch(async (e: unknown) => {
        await screenshot(tab, '07-locks-admin-failed');
        throw e;
      });
    // The owner's page learns of it from the live feed too.
    await page.getByText('No file is locked.').waitFor();
    expect((await member.api.get(`/api/v1/projects/${projectId}/locks`)).body.data).toEqual([]);
    await context.close();
  });

  it('creates a branch, merges it into main by default, and deletes it only once confirmed; shows members and settings', async () => {
    await page.getByRole('tab', { name: 'Branches' }).click();
    await page.getByLabel('New branch').fill('lighting');
    await page.getByRole('button', { name: 'Create branch' }).click();
    const row = page.getByRole('row', { name: /^lighting/ });
    await row.waitFor();
    expect(await page.getByLabel('Merge lighting into').inputValue()).toBe('main');
    await screenshot(page, '08-branches');

    await page.getByRole('button', { name: 'Delete branch lighting' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await expect(row.count()).resolves.toBe(1);
    await page.getByRole('button', { name: 'Delete branch lighting' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete branch' }).click();
    await row.waitFor({ state: 'detached' });

    await page.getByRole('tab', { name: 'Members' }).click();
    await page.getByLabel('Invite by email').fill(inviteeEmail);
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await page.getByRole('table', { name: 'Invitations' }).getByText(inviteeEmail).waitFor();
    await screenshot(page, '09-members');
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByLabel('Payload URL').fill('https://203.0.113.7/hook');
    // The form offers every type of the server's catalogue, the storage events too, not only the first ones.
    const offered = page.locator('form', { has: page.getByLabel('Payload URL') }).getByRole('checkbox');
    expect(await Promise.all((await offered.all()).map((box) => box.getAttribute('value')))).toEqual([...publicEvents.PUBLIC_EVENT_TYPES]);
    await page.getByRole('checkbox', { name: 'retention.applied', exact: true }).check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByText(/^whsec_/).waitFor();
    const hook = page.getByRole('table', { name: 'Webhooks' }).getByRole('row', { name: /203\.0\.113\.7\/hook/ });
    await hook.getByText('commit.created, retention.applied').waitFor();
    await screenshot(page, '10-settings');
  });

  it("shows a project without a write limit of its own the operator's default in force, and says which limit applies once it has one", async () => {
    const { perSecond, burst } = OPERATOR_LIMIT;
    const rate = page.getByLabel('Writes per second');
    const bucket = page.getByLabel('Burst');
    await page.getByText(`No limit of its own: the server's default applies, ${perSecond} writes per second in bursts of ${burst}.`).waitFor();
    expect([await rate.inputValue(), await rate.getAttribute('placeholder')]).toEqual(['', String(perSecond)]);
    expect([await bucket.inputValue(), await bucket.getAttribute('placeholder')]).toEqual(['', String(burst)]);
    await page.getByText(`At most ${perSecond} writes per second in bursts of ${burst} here; the server's operator can allow more.`).waitFor();

    await rate.fill('30');
    await bucket.fill('40');
    await page.getByRole('button', { name: 'Save' }).click();
    await page
      .getByText(`This project's own limit applies: 30 writes per second in bursts of 40 (the server's default: ${perSecond} in bursts of ${burst}).`)
      .waitFor();
    await page.getByRole('button', { name: 'Use the default' }).click();
    await page.getByText(`No limit of its own: the server's default applies, ${perSecond} writes per second in bursts of ${burst}.`).waitFor();
    // The fields empty again, showing the default as their placeholders, not the limit just dropped.
    expect([await rate.inputValue(), await bucket.inputValue()]).toEqual(['', '']);
  });

  it('shows a person invited by email the invitation on their projects page, and accepting it brings in the organization', async () => {
    const invitee = await stack.seed.admin.post<{ id: string }>('/admin/v1/users', { name: 'Ines Invited', email: inviteeEmail });
    const { context, tab } = await signedIn(invitee.body.id);
    const invitations = tab.getByRole('region', { name: 'Invitations' });
    await invitations.getByText(/invites you to/).waitFor();
    await invitations.getByRole('button', { name: /^Accept the invitation/ }).click();
    await tab.getByRole('link', { name: /Forest Game/ }).waitFor();
    await expect(invitations.count()).resolves.toBe(0);
    await context.close();
  });

  it("keeps a member to their own keys and their own orgs' projects, then signs them out", async () => {
    const member = await stack.seed.member(owner.orgId, projectId, 'member', 'Nils Member');
    const outsider = await stack.seed.project();
    const { context, tab: phone } = await signedIn(member.userId, { width: 390, height: 844 });
    await phone.getByRole('link', { name: /Forest Game/ }).waitFor();
    // One org, the member's: the outsider's org and project are not there.
    await expect(phone.getByRole('region', { name: /^Organization / }).count()).resolves.toBe(1);
    await expect(phone.locator(`a[href*="${owner.projectId}"]`).count()).resolves.toBe(1);
    await expect(phone.locator(`a[href*="${outsider.projectId}"]`).count()).resolves.toBe(0);
    await screenshot(phone, '11-member-projects-390px');

    await phone.goto(`${stack.baseUrl}/projects/${projectId}/keys`);
    const keys = phone.getByRole('table', { name: 'API keys' });
    await keys.getByText('Nils Member').waitFor();
    await expect(keys.getByText(owner.key.slice(-4)).count()).resolves.toBe(0);
    await expect(keys.getByRole('row').count()).resolves.toBe(2);
    await screenshot(phone, '12-member-keys-390px');

    await phone.goto(`${stack.baseUrl}/projects/${outsider.projectId}/files`);
    await phone.getByRole('alert').getByText('Project not found').waitFor();

    await phone.getByRole('button', { name: 'Sign out' }).click();
    await phone.waitForURL('**/sign-in');
    await phone.goto(`${stack.baseUrl}/projects/${projectId}/files`);
    await phone.waitForURL('**/sign-in');
    await context.close();
  });

  it('sends a person whose session ended elsewhere to sign in at their next click, not to an error', async () => {
    const member = await stack.seed.project({ role: 'member' });
    const { context, tab } = await signedIn(member.userId);
    await tab.goto(`${stack.baseUrl}/projects/${member.projectId}/files`);
    await tab.getByText('No files on this branch yet').waitFor();
    const cookie = (await context.cookies()).find((c) => c.name === 'lode_session')!;
    expect(await stack.bus.call(sessions.endSession, { tokenHash: sessions.tokenHash(cookie.value) })).toEqual({ ended: true });

    await tab.getByRole('tab', { name: 'Commits' }).click();
    await tab.waitForURL('**/sign-in');
    await tab.getByRole('heading', { name: 'Sign in to Lode' }).waitFor();
    await expect(tab.getByText('Something went wrong').count()).resolves.toBe(0);
    await context.close();
  });
});
