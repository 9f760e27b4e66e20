import { sleep } from 'k6';
import { Rate } from 'k6/metrics';
import type { LodeApi } from '../lib/api.ts';
import { randomContent } from '../lib/content.ts';
import { fractionEnv, intEnv } from '../lib/env.ts';
import { defineFlow } from '../lib/flow.ts';
import { pick, range } from '../lib/lists.ts';
import { flowDuration } from '../lib/outcome.ts';
import { pushFiles, type PushResult } from '../lib/push.ts';

// Artists fighting over a few files: each iteration locks one of LOCK_FILES committed
// files; the winner holds it LOCK_HOLD_MS, pushes a new version and commits (which releases the
// lock); a loser, LOCK_ROGUE_RATIO of the time, pushes and commits anyway, which the commit fence
// must refuse with 409 file_locked while someone else holds the lock. Contention refusals are
// expected results, counted in lode_expected_conflicts, not errors.
//
// Locks belong to users, not VUs: VUs of the same user both "hold" a lock they share, which is why
// the holder's push expects conflicts too. USERS sets how many users contend (default 4).

const FILES = intEnv('LOCK_FILES', 8, 1, 1000);
const SIZE = intEnv('FILE_SIZE', 4096, 0, 5 * 1024 ** 3);
const HOLD_MS = intEnv('LOCK_HOLD_MS', 250, 0);
const ROGUE = fractionEnv('LOCK_ROGUE_RATIO', 0.2);

// What another user's work on the same file makes a push run into (docs/api.md, Uploads, Commits).
const CONTENTION = ['file_locked', 'version_conflict', 'stale_version'] as const;

/** Share of lock attempts that got the lock: how hard the VUs are fighting. */
const lockAcquired = new Rate('lode_lock_acquired');

interface LocksSeed {
  files: { fileId: string; path: string }[];
}

function edit(api: LodeApi, file: { path: string }, message: string): PushResult {
  return pushFiles(api, [{ path: file.path, content: randomContent(SIZE) }], { message, action: 'modify', conflicts: CONTENTION });
}

export const locksFlow = defineFlow<LocksSeed>({
  name: 'locks',
  steps: ['lock', 'unlock', 'initiate-batch', 'put', 'confirm', 'commit'],
  budget: { rate: 10, requestP95Ms: 300, flowP95Ms: 1500 + HOLD_MS },
  seed: (api) => {
    const files = range(FILES).map((i) => ({ path: `k6/locks/contended-${i}.bin`, content: randomContent(SIZE) }));
    const pushed = pushFiles(api, files, { message: `k6 locks seed: ${FILES} files` });
    if (pushed.outcome !== 'ok') throw new Error(`setup: seeding the locks project failed at ${pushed.stoppedAt ?? '?'}`);
    return { files: pushed.files.map((f) => ({ fileId: f.fileId, path: f.path })) };
  },
  iterate: (api, seed) => {
    const started = Date.now();
    const file = pick(seed.files);
    const lock = api.lock([file.fileId], `k6 VU ${__VU}`);
    if (lock.body === undefined) return;
    const held = lock.body.acquired.some((l) => l.fileId === file.fileId);
    lockAcquired.add(held, { flow: api.flow });
    if (held) {
      sleep(HOLD_MS / 1000);
      // A successful commit releases the committer's lock; after any other ending it is released here.
      if (edit(api, file, `k6 locked edit by VU ${__VU}`).outcome !== 'ok') api.unlock([file.fileId]);
    } else if (Math.random() < ROGUE) {
      edit(api, file, `k6 edit without the lock by VU ${__VU}`);
    }
    flowDuration.add(Date.now() - started, { flow: api.flow });
  },
});
