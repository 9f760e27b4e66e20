import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { pushFile, type PushedFile, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { launchChromium, screenshot } from './browser.ts';

/** Generous: two cores shared by many runs make a page's first paint slow, never wrong. */
const UI_TIMEOUT = 30_000;

/**
 * A file's page shows who holds its lock and offers only what the viewer may do with it: the holder
 * releases, an owner or admin force-releases once confirmed, and nobody is offered to lock a file
 * someone else holds. Each person in a browser of their own; the pages follow the live feed.
 */
describe('file page lock in Chromium', () => {
  let stack: TestStack;
  let browser: Browser;
  let owner: SeededProject;
  let alice: SeededProject;
  let bob: SeededProject;
  let file: PushedFile;
  let alicePage: Page;
  let ownerPage: Page;
  const contexts: BrowserContext[] = [];

  const locksPath = () => `/api/v1/projects/${owner.projectId}/locks`;
  const filePage = (fileId: string) => `${stack.baseUrl}/projects/${owner.projectId}/files/${fileId}`;
  /** A browser of the user's own, signed in by a link. */
  const signedIn = async (userId: string): Promise<Page> => {
    const link = await stack.seed.admin.post<{ url: string }>(`/admin/v1/users/${userId}/sign-in-links`);
    expect(link.status).toBe(201);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(UI_TIMEOUT);
    contexts.push(context);
    const tab = await context.newPage();
    await tab.goto(link.body.url);
    await tab.getByRole('heading', { name: 'Projects' }).waitFor();
    return tab;
  };
  /** The page's lock section: who holds the file and what the viewer may do about it. */
  const lockSection = (page: Page) => page.getByRole('region', { name: 'Lock' });
  /** A time as the browser shows it (formatTime: the viewer's locale and zone). */
  const shown = (page: Page, iso: string) => page.evaluate((at) => new Date(at).toLocaleString(), iso);
  const locks = async () => (await owner.api.get(locksPath())).body.data as { fileId: string; userId: string; note: string; lockedAt: string }[];

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startTestStack({ bus: 'local' }), launchChromium()]);
    owner = await stack.seed.project({ role: 'owner' });
    [alice, bob] = await Promise.all([
      stack.seed.member(owner.orgId, owner.projectId, 'member', 'Alice Artist'),
      stack.seed.member(owner.orgId, owner.projectId, 'member', 'Bob Builder'),
    ]);
    file = await pushFile(bob.api, owner.projectId, 'Characters/hero.psd', Buffer.from(`hero ${Date.now()}`));
    const commit = await bob.api.post(`/api/v1/projects/${owner.projectId}/commits`, {
      message: 'Add the hero',
      fileVersions: [{ fileId: file.fileId, action: 'add', version: file.version }],
    });
    expect(commit.status, JSON.stringify(commit.body)).toBe(201);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it("shows a teammate's lock with name, note and time to a member, and offers her nothing that would take it", async () => {
    const taken = await bob.api.post(locksPath(), { fileIds: [file.fileId], note: 'repainting the face' });
    expect(taken.body.acquired).toHaveLength(1);
    const lockedAt = taken.body.acquired[0].lockedAt as string;

    alicePage = await signedIn(alice.userId);
    await alicePage.goto(filePage(file.fileId));
    await alicePage.getByRole('heading', { name: 'Characters/hero.psd' }).waitFor();
    const lock = lockSection(alicePage);
    await lock.getByText(`Locked by Bob Builder since ${await shown(alicePage, lockedAt)}`).waitFor();
    await lock.getByText('repainting the face').waitFor();
    await screenshot(alicePage, 'file-lock-01-member-sees-holder');
    for (const name of [/lock this file/i, /release/i]) await expect(alicePage.getByRole('button', { name }).count()).resolves.toBe(0);
    // Bob's lock is as he took it.
    expect(await locks()).toEqual([expect.objectContaining({ fileId: file.fileId, userId: bob.userId, note: 'repainting the face', lockedAt })]);
  });

  it('lets an owner force-release it once confirmed; both pages then show the file unlocked', async () => {
    ownerPage = await signedIn(owner.userId);
    await ownerPage.goto(filePage(file.fileId));
    const lock = lockSection(ownerPage);
    await lock.getByText(/^Locked by Bob Builder since /).waitFor();
    await expect(ownerPage.getByRole('button', { name: /lock this file/i }).count()).resolves.toBe(0);
    const force = lock.getByRole('button', { name: 'Force release Characters/hero.psd' });
    await force.click();
    await ownerPage.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    expect(await locks()).toHaveLength(1);
    await force.click();
    await ownerPage.getByRole('dialog').getByRole('button', { name: 'Force release' }).click();
    await lock.getByRole('button', { name: 'Lock this file' }).waitFor();
    await expect(lock.getByText(/Locked by/).count()).resolves.toBe(0);
    expect(await locks()).toEqual([]);
    // Alice's page learns of it from the live feed, without a reload.
    await lockSection(alicePage).getByRole('button', { name: 'Lock this file' }).waitFor();
    await expect(
      lockSection(alicePage)
        .getByText(/Locked by/)
        .count(),
    ).resolves.toBe(0);
  });

  it('lets a member lock the free file with a note and release it; the owner watches it live', async () => {
    const lock = lockSection(alicePage);
    await lock.getByLabel('Note').fill('fixing the rig');
    await lock.getByRole('button', { name: 'Lock this file' }).click();
    await lock.getByText(/^Locked by Alice Artist/).waitFor();
    await lock.getByText('fixing the rig').waitFor();
    const [held] = await locks();
    expect(held).toMatchObject({ fileId: file.fileId, userId: alice.userId, note: 'fixing the rig' });
    await lock.getByText(`Locked by Alice Artist since ${await shown(alicePage, held.lockedAt)}`).waitFor();
    await expect(alicePage.getByRole('button', { name: /lock this file/i }).count()).resolves.toBe(0);
    await expect(lock.getByRole('button', { name: /force release/i }).count()).resolves.toBe(0);
    await screenshot(alicePage, 'file-lock-02-holder-sees-release');
    // The owner sees Alice's lock arrive and may force it.
    await lockSection(ownerPage)
      .getByText(/^Locked by Alice Artist since /)
      .waitFor();
    await lockSection(ownerPage).getByRole('button', { name: 'Force release Characters/hero.psd' }).waitFor();

    await lock.getByRole('button', { name: 'Release Characters/hero.psd' }).click();
    await lock.getByRole('button', { name: 'Lock this file' }).waitFor();
    expect(await locks()).toEqual([]);
    await lockSection(ownerPage).getByRole('button', { name: 'Lock this file' }).waitFor();
  });

  it('shows the lock of a file never committed to main, reached from the Locks page', async () => {
    const draft = await pushFile(bob.api, owner.projectId, 'Characters/villain.psd', Buffer.from(`villain ${Date.now()}`));
    expect((await bob.api.post(locksPath(), { fileIds: [draft.fileId], note: 'first sketch' })).body.acquired).toHaveLength(1);
    await alicePage.goto(`${stack.baseUrl}/projects/${owner.projectId}/locks`);
    await alicePage.getByRole('link', { name: 'Characters/villain.psd' }).click();
    const lock = lockSection(alicePage);
    await lock.getByText(/^Locked by Bob Builder since /).waitFor();
    await lock.getByText('first sketch').waitFor();
    await expect(alicePage.getByRole('button', { name: /lock this file|release/i }).count()).resolves.toBe(0);
  });
});
