import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { launchChromium, screenshot, signedInPage } from './browser.ts';

/** An owner deletes the project from its settings (typing its name), and brings it back from the home page. */
describe('deleting a project in Chromium', () => {
  let stack: TestStack;
  let browser: Browser;
  let owner: SeededProject;
  let page: Page;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startTestStack({ bus: 'local' }), launchChromium()]);
    owner = await stack.seed.project({ role: 'owner' });
    page = await signedInPage(browser, stack.seed.admin, owner.userId);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const commits = () => owner.api.get(`/api/v1/projects/${owner.projectId}/commits`);

  it('asks for the name, deletes, and restores from the home page', async () => {
    const { name } = (await stack.seed.admin.get(`/admin/v1/orgs/${owner.orgId}/projects`)).body.data[0] as { name: string };
    await page.goto(`${stack.baseUrl}/projects/${owner.projectId}/settings`);
    await page.getByRole('button', { name: 'Delete project' }).click();
    const dialog = page.getByRole('dialog');
    const confirm = dialog.getByRole('button', { name: 'Delete project' });
    await dialog.getByRole('textbox', { name: 'Project name' }).fill(`${name}x`);
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByRole('textbox', { name: 'Project name' }).fill(name);
    await confirm.click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    const deleted = page.getByRole('group', { name: `Deleted project ${name}` });
    await deleted.waitFor();
    expect((await commits()).status).toBe(410);
    await screenshot(page, 'delete-project-01-deleted');

    await deleted.getByRole('button', { name: 'Restore' }).click();
    await page.getByRole('link', { name: new RegExp(name) }).waitFor();
    expect((await commits()).status).toBe(200);
  });
});
