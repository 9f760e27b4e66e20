import type { LodeApi, SyncReply, SyncRequest } from '../lib/api.ts';
import { labelledContent } from '../lib/content.ts';
import { fractionEnv, intEnv } from '../lib/env.ts';
import { defineFlow } from '../lib/flow.ts';
import { randomHex, uuidV4 } from '../lib/ids.ts';
import { chunks, range } from '../lib/lists.ts';
import { flowDuration, verify } from '../lib/outcome.ts';
import { pushFiles } from '../lib/push.ts';

// A desktop client opening a workspace: setup commits SYNC_FILES files; each iteration syncs the
// whole workspace as a client that has edited some files (modified), deleted some (missing), made
// some new ones (local_only) and holds the rest unchanged (up_to_date), and checks that every file
// got exactly that status. Above SYNC_BATCH files it syncs as a session of batches (docs/api.md, Sync).

const FILES = intEnv('SYNC_FILES', 1000, 1, 1_000_000);
const SIZE = intEnv('SYNC_FILE_SIZE', 256, 0, 1024 * 1024);
const BATCH = intEnv('SYNC_BATCH', 10_000, 1, 10_000);
const DRIFT = fractionEnv('SYNC_DRIFT', 0.02);

interface SyncSeed {
  files: number;
}

interface Entry {
  path: string;
  sha256: string;
}

function seededFile(projectId: string, i: number): { path: string; content: ReturnType<typeof labelledContent> } {
  return { path: `k6/sync/dir-${i % 64}/file-${i}.bin`, content: labelledContent(`lode k6 sync ${projectId} ${i}`, SIZE) };
}

// Rebuilt once per VU from the project id, so setup data does not carry a large manifest to every VU.
let workspace: Entry[] | undefined;

function committedWorkspace(projectId: string, count: number): Entry[] {
  if (workspace === undefined) {
    workspace = range(count).map((i) => {
      const file = seededFile(projectId, i);
      return { path: file.path, sha256: file.content.sha256 };
    });
  }
  return workspace;
}

type Tally = Record<string, number>;

/** The local view: `drift` files edited, the next `drift` deleted, `drift` new ones; the rest as committed. */
function localView(committed: readonly Entry[]): { files: Entry[]; expected: Tally } {
  const n = committed.length;
  const drift = Math.min(Math.floor(n / 2), Math.round(n * DRIFT));
  const start = Math.floor(Math.random() * n);
  const role = (i: number): 'modified' | 'missing' | 'same' => {
    const offset = (i - start + n) % n;
    return offset < drift ? 'modified' : offset < 2 * drift ? 'missing' : 'same';
  };
  const files: Entry[] = [];
  committed.forEach((entry, i) => {
    const r = role(i);
    if (r === 'modified') files.push({ path: entry.path, sha256: randomHex(32) });
    else if (r === 'same') files.push(entry);
  });
  const fresh = range(drift).map((j) => ({ path: `k6/sync/local/vu${__VU}-${randomHex(4)}-${j}.bin`, sha256: randomHex(32) }));
  return {
    files: files.concat(fresh),
    expected: { up_to_date: n - 2 * drift, modified: drift, missing: drift, local_only: drift },
  };
}

/** One request, or a session whose batches but the last travel in parallel; the last asks for remote-only files. */
function syncWorkspace(api: LodeApi, files: readonly Entry[]): SyncReply[] | undefined {
  const batches = chunks(files, BATCH);
  if (batches.length <= 1) {
    const call = api.sync({ files: batches[0] ?? [], includeRemoteOnly: true });
    return call.body ? [call.body] : undefined;
  }
  const id = uuidV4();
  const requests: SyncRequest[] = batches.map((batch, i) => ({ files: batch, session: { id, batch: i } }));
  const last = requests.pop();
  if (last === undefined) return undefined;
  const replies: SyncReply[] = [];
  for (const call of api.syncAll(requests)) {
    if (call.body === undefined) return undefined;
    replies.push(call.body);
  }
  const final = api.sync({ ...last, includeRemoteOnly: true });
  if (final.body === undefined) return undefined;
  return replies.concat([final.body]);
}

function tally(replies: readonly SyncReply[]): Tally {
  const counts: Tally = {};
  for (const reply of replies) for (const row of reply.files) counts[row.status] = (counts[row.status] ?? 0) + 1;
  return counts;
}

function sameTally(a: Tally, b: Tally): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => (a[k] ?? 0) === (b[k] ?? 0));
}

export const syncFlow = defineFlow<SyncSeed>({
  name: 'sync',
  steps: ['sync'],
  budget: { rate: 2, requestP95Ms: 1000, flowP95Ms: 2000 },
  seed: (api) => {
    const pushed = pushFiles(
      api,
      range(FILES).map((i) => seededFile(api.creds.projectId, i)),
      { message: `k6 sync seed: ${FILES} files` },
    );
    if (pushed.outcome !== 'ok') throw new Error(`setup: seeding the sync project failed at ${pushed.stoppedAt ?? '?'}`);
    return { files: FILES };
  },
  iterate: (api, seed) => {
    const started = Date.now();
    const local = localView(committedWorkspace(api.creds.projectId, seed.files));
    const replies = syncWorkspace(api, local.files);
    if (replies === undefined) return;
    flowDuration.add(Date.now() - started, { flow: api.flow });
    const got = tally(replies);
    verify({ flow: api.flow, step: 'sync' }, sameTally(got, local.expected), `statuses ${JSON.stringify(got)}, expected ${JSON.stringify(local.expected)}`);
  },
});
