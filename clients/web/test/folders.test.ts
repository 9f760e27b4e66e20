import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { pushFile, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { launchChromium, screenshot, signedInPage } from './browser.ts';

/** More folders at the root than the dashboard's page (PAGE_SIZE, src/paging.ts) holds. */
const FOLDERS = 130;
/** Files in the first folder: more than a page, which a page of the flat tree listing held only them. */
const FIRST_FOLDER_FILES = 120;

/** The Files page in a real browser: a root of many folders, each level listed by the server. */
describe('the dashboard file browser by folder, in Chromium', () => {
  let stack: TestStack;
  let browser: Browser;
  let owner: SeededProject;
  let page: Page;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startTestStack({ bus: 'local' }), launchChromium()]);
    owner = await stack.seed.project({ role: 'owner' });
    page = await signedInPage(browser, stack.seed.admin, owner.userId, { width: 1280, height: 800 });
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('shows every folder of the root after "Load more", with counts and sizes, and goes into one and back', async () => {
    const base = `/api/v1/projects/${owner.projectId}`;
    const bytes = Buffer.from(`a tile ${Date.now()}`);
    const folder = (i: number) => `Folder-${String(i).padStart(3, '0')}`;
    const pushed = [];
    // Ten at a time: the same bytes, so all but the first are deduplicated (no upload).
    for (let start = 0; start < FOLDERS; start += 10) {
      pushed.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => pushFile(owner.api, owner.projectId, `${folder(start + i)}/tile.png`, bytes)))));
    }
    for (let start = 0; start < FIRST_FOLDER_FILES; start += 10) {
      pushed.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, (_, i) => pushFile(owner.api, owner.projectId, `${folder(0)}/bulk-${String(start + i).padStart(3, '0')}.png`, bytes)),
        )),
      );
    }
    pushed.push(await pushFile(owner.api, owner.projectId, `${folder(7)}/Deeper/rock.png`, Buffer.from('a rock')));
    pushed.push(await pushFile(owner.api, owner.projectId, 'readme.txt', Buffer.from('read me')));
    const committed = await owner.api.post(`${base}/commits`, {
      message: 'Many folders',
      fileVersions: pushed.map((f) => ({ fileId: f.fileId, action: 'add', version: f.version })),
    });
    expect(committed.status, JSON.stringify(committed.body)).toBe(201);

    await page.goto(`${stack.baseUrl}/projects/${owner.projectId}/files`);
    const files = page.getByRole('table', { name: 'Files' });
    const folderButtons = files.getByRole('button', { name: /^Folder-\d{3}\/$/ });
    await files.getByRole('button', { name: `${folder(0)}/` }).waitFor();
    expect(await folderButtons.count()).toBe(100);
    await expect(files.getByRole('link', { name: 'readme.txt' }).count()).resolves.toBe(0);

    await page.getByRole('button', { name: /^Load more/ }).click();
    await files.getByRole('link', { name: 'readme.txt' }).waitFor();
    expect((await folderButtons.allTextContents()).map((text) => text.trim())).toEqual(Array.from({ length: FOLDERS }, (_, i) => `${folder(i)}/`));
    await expect(page.getByRole('button', { name: /^Load more/ }).count()).resolves.toBe(0);
    // A folder's row carries its files at any depth and their total size.
    await files.getByRole('row', { name: new RegExp(`^${folder(0)}/\\s*${FIRST_FOLDER_FILES + 1}\\s`) }).waitFor();
    await files.getByRole('row', { name: new RegExp(`^${folder(7)}/\\s*2\\s`) }).waitFor();
    await screenshot(page, 'folders-root-all');

    await files.getByRole('button', { name: `${folder(7)}/` }).click();
    await files.getByRole('button', { name: 'Deeper/' }).waitFor();
    await files.getByRole('link', { name: 'tile.png' }).waitFor();
    expect(new URL(page.url()).searchParams.get('prefix')).toBe(`${folder(7)}/`);
    await page.getByRole('button', { name: 'All files' }).click();
    await files.getByRole('button', { name: `${folder(0)}/` }).waitFor();
    expect(new URL(page.url()).searchParams.get('prefix')).toBeNull();
  });
});
