import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const REPO_ROOT = path.resolve(import.meta.dirname, '..');

/**
 * The repository's own eslint.config.js, with only no-restricted-imports (the layering rules) run:
 * that rule needs no type information, so the synthetic files below need not exist on disk.
 */
const eslint = new ESLint({
  cwd: REPO_ROOT,
  overrideConfigFile: path.join(REPO_ROOT, 'eslint.config.js'),
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
  ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
});

/** The messages of no-restricted-imports for `code` as if it were the file at `file` (relative to the repository). */
async function restrictions(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(REPO_ROOT, file) });
  expect(result.messages.filter((m) => m.fatal)).toEqual([]);
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('the layering rules of eslint.config.js', () => {
  // The first lint loads the config, its plugins and the parser: a one-time cost that a loaded machine
  // stretches far past a test's timeout, so it is paid here, not inside the first test.
  beforeAll(() => restrictions('libs/bus/src/warm-up.ts', ''), 300_000);

  it.each([
    ['a service by package name', "import { SERVICES } from '@lode/system';"],
    ['a subpath of a service package', "import { SERVICE_NAMES } from '@lode/system/names';"],
    ['a client by package name', "import type { Client } from '@lode/sdk';"],
    ['a service by relative path', "import { commitStartup } from '../../../services/commit/src/startup.ts';"],
    ['a client by relative path', "export { run } from '../../../clients/cli/src/main.ts';"],
  ])('refuses a library importing %s', async (_what, code) => {
    expect(await restrictions('libs/bus/src/synthetic.ts', code)).toEqual([expect.stringContaining('A library must not depend on a service or a client')]);
  });

  it('lets a library import another library, by name or by path, in its sources and its tests', async () => {
    expect(
      await restrictions('libs/bus/src/synthetic.ts', "import { AppError } from '@lode/errors';\nimport { env } from '../../config/src/index.ts';"),
    ).toEqual([]);
    expect(await restrictions('libs/bus/test/synthetic.test.ts', "import { Bus } from '../src/bus.ts';")).toEqual([]);
  });

  it.each([
    ['a library by package name', 'clients/sdk/src/synthetic.ts', "import { AppError } from '@lode/errors';"],
    ['a service by package name', 'clients/cli/src/synthetic.ts', "import { PROJECT_SERVICES } from '@lode/gateway';"],
    ['a library by relative path', 'clients/web/src/synthetic.tsx', "import { commit } from '../../../libs/contracts/src/index.ts';"],
    ['a service by relative path', 'clients/cli/src/commands/synthetic.ts', "import type { Actor } from '../../../../services/gateway/src/index.ts';"],
  ])("refuses a client's source importing %s", async (_what, file, code) => {
    expect(await restrictions(file, code)).toEqual([expect.stringContaining('depend on no server package')]);
  });

  it("lets a client's source import the SDK and its own files, and a client's test import the server packages", async () => {
    expect(await restrictions('clients/cli/src/synthetic.ts', "import { LodeClient } from '@lode/sdk';\nimport { scan } from './scan.ts';")).toEqual([]);
    expect(await restrictions('clients/cli/test/synthetic.test.ts', "import { startTestStack } from '@lode/system/testing';")).toEqual([]);
  });

  it('refuses a repository importing another repository, values and types alike', async () => {
    const file = 'services/sync/src/repo/tree-repo.ts';
    expect(await restrictions(file, "import type { Lineage } from './branches-repo.ts';")).toEqual([
      expect.stringContaining('Repositories never import each other'),
    ]);
    expect(await restrictions(file, "import { FilesRepository } from '../../../upload/src/repo/files-repo.ts';")).toEqual([
      expect.stringContaining('Repositories never import each other'),
    ]);
  });

  it('lets a repository import the rows repositories share, the domain and the libraries', async () => {
    const code =
      "import type { Lineage } from './sync-rows.ts';\nimport type { Progress } from '../domain/part-plan.ts';\nimport { textList } from '@lode/db';";
    expect(await restrictions('services/sync/src/repo/tree-repo.ts', code)).toEqual([]);
  });

  it.each([
    ['a repository', "import { LocksRepository } from '../repo/locks-repo.ts';"],
    ['the rows a repository answers with', "import type { LockRow } from '../repo/lock-rows.ts';"],
  ])('refuses a handler importing %s', async (_what, code) => {
    expect(await restrictions('services/lock/src/handlers/synthetic.ts', code)).toEqual([
      expect.stringContaining('A handler calls the domain, never a repository'),
    ]);
  });

  it("refuses a service's table of contract → domain call importing a repository", async () => {
    const code = "import { LocksRepository } from './repo/locks-repo.ts';";
    expect(await restrictions('services/lock/src/serve.ts', code)).toEqual([expect.stringContaining('A handler calls the domain, never a repository')]);
  });

  it('lets a handler import the domain and the contracts', async () => {
    const code = "import type { LockService } from '../domain/lock-service.ts';\nimport { lock } from '@lode/contracts';";
    expect(await restrictions('services/lock/src/handlers/synthetic.ts', code)).toEqual([]);
  });

  it('leaves the domain free to import its repositories', async () => {
    expect(await restrictions('services/lock/src/domain/synthetic.ts', "import type { LocksRepository } from '../repo/locks-repo.ts';")).toEqual([]);
  });
});
