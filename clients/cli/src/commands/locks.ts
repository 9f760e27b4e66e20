import type { Command } from 'commander';
import { allPages, chunk } from '@lode/sdk';
import { describeLock, EXIT, refusedInput } from '../failure.ts';
import { optionalWorkspace, resolveFiles, type NamedFile } from '../resolve.ts';
import { connected } from '../run.ts';

/** File ids per lock or unlock call: the API's limit (docs/api.md, Locks). */
const MAX_FILE_IDS = 1000;

/** An answer made of lists only, as lock's and unlock's are: batches' answers merge list by list. */
type Lists<T> = { [K in keyof T]: unknown[] };

/**
 * Locks or unlocks any number of files as one call would: batches of at most the API's limit, one
 * after another, their answers merged in request order. A file named twice goes in once, as the API
 * counts it within one call. Each batch stands on its own: a failure midway keeps the batches before
 * it, and running the command again is safe (a lock held is refreshed, a lock released stays so).
 */
async function inBatches<T extends Lists<T>>(files: NamedFile[], call: (fileIds: string[]) => Promise<T>): Promise<T> {
  const answers: T[] = [];
  for (const ids of chunk([...new Set(files.map((f) => f.fileId))], MAX_FILE_IDS)) answers.push(await call(ids));
  return mergeLists(answers);
}

function mergeLists<T extends Lists<T>>(answers: T[]): T {
  const keys = Object.keys(answers[0]) as (keyof T)[];
  return Object.fromEntries(keys.map((key) => [key, answers.flatMap((answer) => answer[key])])) as T;
}

export function lockCommands(program: Command): void {
  program
    .command('lock')
    .description('lock files for exclusive editing')
    .argument('<paths...>', 'files to lock')
    .option('--note <text>', 'what you are doing (at most 280 characters)')
    .action(
      connected(async ({ client, out, signal }, paths: string[], options: { note?: string }) => {
        const files = await resolveFiles(client, await optionalWorkspace(), paths, undefined, signal);
        const answer = await inBatches(files, (ids) => client.lock(ids, options.note, { signal }).catch(refusedInput));
        out.result(answer, () => [
          ...answer.acquired.map((l) => `locked ${l.path}`),
          ...answer.conflicts.map((c) =>
            c.reason === 'locked'
              ? `not locked: ${describeLock(c)}`
              : `not locked: ${c.path} is being committed by ${c.userName ?? 'someone'}; try again in a moment`,
          ),
        ]);
        return answer.conflicts.length > 0 ? EXIT.conflict : EXIT.ok;
      }),
    );

  program
    .command('unlock')
    .description('release your locks (--force: anyone’s, for org owners and admins)')
    .argument('<paths...>', 'files to unlock')
    .option('--force', "release a teammate's lock")
    .action(
      connected(async ({ client, out, signal }, paths: string[], options: { force?: boolean }) => {
        const files = await resolveFiles(client, await optionalWorkspace(), paths, undefined, signal, { orLocked: true });
        const answer = await inBatches(files, (ids) => client.unlock(ids, Boolean(options.force), { signal }));
        out.result(answer, () => [
          ...answer.released.map((l) => `unlocked ${l.path}`),
          ...answer.notReleased.map((n) =>
            n.reason === 'held_by_other' ? `not unlocked: ${describeLock(n)} (--force needs an org owner or admin)` : `${n.path} was not locked`,
          ),
        ]);
        return answer.notReleased.some((n) => n.reason === 'held_by_other') ? EXIT.conflict : EXIT.ok;
      }),
    );

  program
    .command('locks')
    .description("list the project's active locks")
    .option('--prefix <path>', 'only under this folder')
    .action(
      connected(async ({ client, out, signal }, options: { prefix?: string }) => {
        const locks = await allPages((cursor) => client.listLocks({ limit: 200, cursor, pathPrefix: options.prefix }, { signal }));
        out.result({ data: locks }, () =>
          locks.length === 0 ? ['No locks.'] : locks.map((l) => `${l.path}  ${l.isMine ? 'you' : l.userName}  ${l.lockedAt}${l.note ? `  ${l.note}` : ''}`),
        );
      }),
    );
}
