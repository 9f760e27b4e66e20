import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { CliUser } from './cli-runner.ts';
import { emptyDir, expectOk } from './workspace-fixtures.ts';

/** Each step starts a CLI process, seconds apiece on a loaded machine. */
const TIMEOUT = 180_000;

describe('lode project delete and lode admin projects delete/undelete', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local' });
  });
  afterAll(async () => stack?.stop());

  it(
    'asks before deleting, refuses members, deletes for an owner; an operator brings the project back',
    async () => {
      const owner = await stack.seed.project();
      const member = await stack.seed.member(owner.orgId, owner.projectId, 'member');
      const ada = await CliUser.create(stack.baseUrl, owner);
      const bo = await CliUser.create(stack.baseUrl, member);
      const dir = await emptyDir();

      // Not a terminal, no --yes: refused before anything is deleted.
      const unconfirmed = await ada.run(dir, ['project', 'delete']);
      expect(unconfirmed.code).toBe(2);
      expect(unconfirmed.stderr).toContain('Run again with --yes');
      const refused = await bo.run(dir, ['project', 'delete', '--yes', '--json']);
      expect(refused.code).toBe(1);
      expect(refused.json.error).toMatchObject({ code: 'forbidden', status: 403 });

      const deleted = expectOk(await ada.run(dir, ['project', 'delete', '--yes', '--json'])).json;
      expect(deleted).toMatchObject({ projectId: owner.projectId, purgeAfter: expect.any(String) });
      const gone = await bo.run(dir, ['usage', '--json']);
      expect(gone.json.error).toMatchObject({ code: 'project_deleted', status: 410 });

      const operator = await CliUser.create(stack.baseUrl, owner);
      Object.assign(operator.env, { LODE_ADMIN_TOKEN: stack.adminToken, LODE_KEY: '' });
      const back = expectOk(await operator.run(dir, ['admin', 'projects', 'undelete', '--project', owner.projectId])).json;
      expect(back).toMatchObject({ id: owner.projectId, deletedAt: null });
      expectOk(await bo.run(dir, ['usage', '--json']));
      const again = expectOk(await operator.run(dir, ['admin', 'projects', 'delete', '--project', owner.projectId])).json;
      expect(again).toMatchObject({ projectId: owner.projectId });
    },
    TIMEOUT,
  );
});
