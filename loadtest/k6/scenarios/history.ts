import { sha256 } from 'k6/crypto';
import type { FileVersion, LodeApi } from '../lib/api.ts';
import { randomContent } from '../lib/content.ts';
import { fractionEnv, intEnv } from '../lib/env.ts';
import { defineFlow } from '../lib/flow.ts';
import { pick, range } from '../lib/lists.ts';
import { flowDuration, verify } from '../lib/outcome.ts';
import { pushFiles } from '../lib/push.ts';

// Someone browsing a file's history: setup commits HISTORY_VERSIONS versions of each of
// HISTORY_FILES files; each iteration reads up to HISTORY_PAGES pages of HISTORY_PAGE_SIZE versions
// of one file, newest first, checks the versions run down without a gap from the newest, and, for
// HISTORY_DOWNLOAD_RATIO of the iterations, downloads one version and checks its SHA-256.

const FILES = intEnv('HISTORY_FILES', 10, 1, 1000);
const VERSIONS = intEnv('HISTORY_VERSIONS', 120, 1, 100_000);
const SIZE = intEnv('HISTORY_FILE_SIZE', 1024, 0, 5 * 1024 ** 3);
const PAGE_SIZE = intEnv('HISTORY_PAGE_SIZE', 50, 1, 200);
const PAGES = intEnv('HISTORY_PAGES', 3, 1);
const DOWNLOAD = fractionEnv('HISTORY_DOWNLOAD_RATIO', 0.1);

interface HistorySeed {
  files: { fileId: string; path: string }[];
  versions: number;
}

/** Reads pages until the last or PAGES of them; undefined when a request failed. */
function readHistory(api: LodeApi, fileId: string): FileVersion[] | undefined {
  const versions: FileVersion[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < PAGES; page += 1) {
    const call = api.versions(fileId, PAGE_SIZE, cursor);
    if (call.body === undefined) return undefined;
    versions.push(...call.body.data);
    cursor = call.body.nextCursor;
    if (cursor === null) break;
  }
  return versions;
}

export const historyFlow = defineFlow<HistorySeed>({
  name: 'history',
  steps: ['versions', 'download'],
  budget: { rate: 20, requestP95Ms: 300, flowP95Ms: 1000 },
  seed: (api) => {
    const paths = range(FILES).map((i) => `k6/history/asset-${i}.bin`);
    let files: { fileId: string; path: string }[] = [];
    // One commit per round, each touching every file: VERSIONS commits in all.
    for (let round = 1; round <= VERSIONS; round += 1) {
      const pushed = pushFiles(
        api,
        paths.map((path) => ({ path, content: randomContent(SIZE) })),
        {
          message: `k6 history seed, round ${round}`,
          action: round === 1 ? 'add' : 'modify',
        },
      );
      if (pushed.outcome !== 'ok') throw new Error(`setup: seeding the history project failed in round ${round} at ${pushed.stoppedAt ?? '?'}`);
      files = pushed.files.map((f) => ({ fileId: f.fileId, path: f.path }));
    }
    return { files, versions: VERSIONS };
  },
  iterate: (api, seed) => {
    const started = Date.now();
    const file = pick(seed.files);
    const versions = readHistory(api, file.fileId);
    if (versions === undefined) return;
    const labels = { flow: api.flow, step: 'versions' };
    const expectedCount = Math.min(seed.versions, PAGES * PAGE_SIZE);
    const gapless = versions.length === expectedCount && versions.every((v, i) => v.version === seed.versions - i);
    const got = versions.length === 0 ? 'none' : `${versions.length}, ${versions[0].version} down to ${versions[versions.length - 1].version}`;
    verify(labels, gapless, `${file.path}: versions read: ${got}; expected ${expectedCount}, ${seed.versions} down without a gap`);
    if (versions.length > 0 && Math.random() < DOWNLOAD) {
      const version = pick(versions);
      const downloaded = api.download(version.downloadUrl);
      if (downloaded.bytes !== null) {
        const digest = sha256(downloaded.bytes, 'hex');
        verify(
          { flow: api.flow, step: 'download' },
          digest === version.sha256,
          `${file.path} v${version.version}: downloaded SHA-256 ${digest}, API says ${version.sha256}`,
        );
      }
    }
    flowDuration.add(Date.now() - started, { flow: api.flow });
  },
});
