import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { download } from '@lode/contracts';
import { Database } from '@lode/db';
import { bulkContent, pushFile, writeBulkBlobs, type PushedFile, type SeededProject } from '@lode/testkit';
import { seedConfirmedVersions, startTestStack, type TestStack } from '@lode/system/testing';
import { COMMIT_SCHEMA } from '../src/start.ts';
import { keyUnkeyedPaths } from '../src/domain/path-keys.ts';
import { FilePathsRepository } from '../src/repo/file-paths-repo.ts';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The bytes behind a download URL, fetched as a client would: no API key, just the URL. */
async function fetchBytes(url: string): Promise<Buffer> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return Buffer.from(await res.arrayBuffer());
}

describe.each(['local', 'nats'] as const)('batch download URLs through the gateway (%s bus)', (bus) => {
  let stack: TestStack;
  let p: SeededProject;
  const urls = (project = p) => `/api/v1/projects/${project.projectId}/files/download-urls`;
  const commits = () => `/api/v1/projects/${p.projectId}/commits`;
  const push = async (path: string, bytes: Buffer) => ({ ...(await pushFile(p.api, p.projectId, path, bytes)), bytes });
  const commit = async (fileVersions: object[], branch?: string) => {
    const res = await p.api.post(commits(), { message: 'test', fileVersions, branch });
    expect(res.status).toBe(201);
  };
  const ask = async (files: unknown[], branch?: string) => {
    const res = await p.api.post(urls(), { files, branch });
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(files.length);
    return res.body.results as download.DownloadResult[];
  };

  /**
   * A history across two branches: `level` has v1 and v2 on main, then `feature` starts from main
   * (at v2) and commits v3, then main commits v4. `gone` is deleted on main after its v1.
   */
  let level: (PushedFile & { bytes: Buffer })[];
  let gone: PushedFile & { bytes: Buffer };

  beforeAll(async () => {
    stack = await startTestStack({ bus });
    p = await stack.seed.project();
    level = [];
    level.push(await push('Levels/Forest.umap', randomBytes(64)));
    gone = await push('Old/gone.bin', randomBytes(16));
    await commit([
      { fileId: level[0].fileId, version: 1, action: 'add' },
      { fileId: gone.fileId, version: 1, action: 'add' },
    ]);
    for (const [version, branch] of [
      [2, 'main'],
      [3, 'feature'],
      [4, 'main'],
    ] as const) {
      level.push(await push('Levels/Forest.umap', randomBytes(48 + version)));
      await commit([{ fileId: level[0].fileId, version, action: 'modify' }], branch);
    }
    await commit([{ fileId: gone.fileId, action: 'delete' }]);
  });
  afterAll(async () => stack?.stop());

  const form = (f: PushedFile) => ({
    fileId: f.fileId,
    path: f.path,
    version: f.version,
    sha256: f.sha256,
    size: f.size,
    downloadUrl: expect.any(String),
    expiresAt: expect.any(String),
  });

  it('answers the tip on the branch by fileId or by path, with a URL that serves exactly the recorded bytes for an hour', async () => {
    const before = Date.now();
    const [byId, byPath] = await ask([{ fileId: level[0].fileId }, { path: 'Levels/Forest.umap' }]);
    expect(byId).toEqual(form(level[3]));
    expect(byPath).toEqual(form(level[3]));
    if (!('downloadUrl' in byId)) throw new Error('no URL');
    const bytes = await fetchBytes(byId.downloadUrl);
    expect(sha256(bytes)).toBe(byId.sha256);
    expect(bytes.equals(level[3].bytes)).toBe(true);
    const expires = Date.parse(byId.expiresAt);
    expect(expires).toBeGreaterThan(before + 3590_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 3600_000);
  });

  it('matches paths ignoring letter case and Unicode normalization, as uploads do, and answers the stored path', async () => {
    const file = await push('Art/Café Übersicht.psd', randomBytes(20));
    await commit([{ fileId: file.fileId, version: 1, action: 'add' }]);
    const results = await ask([{ path: 'art/CAFÉ übersicht.psd' }, { path: 'Art/Cafe\u0301 U\u0308bersicht.psd' }]);
    expect(results).toEqual([form(file), form(file)]);
  });

  it('answers an earlier version on the lineage, and version_not_found for one that is not', async () => {
    const results = await ask([
      { fileId: level[0].fileId, version: 2 },
      { fileId: level[0].fileId, version: 1 },
      // v3 was committed on feature only; v9 was never uploaded.
      { fileId: level[0].fileId, version: 3 },
      { path: 'levels/forest.umap', version: 9 },
    ]);
    expect(results.slice(0, 2)).toEqual([form(level[1]), form(level[0])]);
    const notOnMain = { fileId: level[0].fileId, path: level[0].path, error: expect.any(String), code: 'version_not_found' };
    expect(results.slice(2)).toEqual([notOnMain, notOnMain]);
    if (!('downloadUrl' in results[1])) throw new Error('no URL');
    expect((await fetchBytes(results[1].downloadUrl)).equals(level[0].bytes)).toBe(true);
  });

  it("answers a branch's own tip, main's versions up to where it started, and not main's later ones", async () => {
    const results = await ask(
      [
        { fileId: level[0].fileId },
        { fileId: level[0].fileId, version: 2 },
        { fileId: level[0].fileId, version: 1 },
        { fileId: level[0].fileId, version: 4 },
        { fileId: gone.fileId },
      ],
      'feature',
    );
    expect(results.slice(0, 3)).toEqual([form(level[2]), form(level[1]), form(level[0])]);
    expect(results[3]).toMatchObject({ fileId: level[0].fileId, code: 'version_not_found' });
    // Deleted on main after the branch started: the branch still holds it.
    expect(results[4]).toEqual(form(gone));
  });

  it("follows a branch's lineage: forked from another branch, and a deleted branch's name reused", async () => {
    const branches = `/api/v1/projects/${p.projectId}/branches`;
    expect((await p.api.post(branches, { name: 'topic', from: 'feature' })).status).toBe(201);
    const asked = [3, 2, 4].map((version) => ({ fileId: level[0].fileId, version }));
    const child = await ask([{ fileId: level[0].fileId }, ...asked], 'topic');
    expect(child.slice(0, 3)).toEqual([form(level[2]), form(level[2]), form(level[1])]);
    expect(child[3]).toMatchObject({ code: 'version_not_found' });

    const own = await push('Levels/Forest.umap', randomBytes(77));
    await commit([{ fileId: own.fileId, version: own.version, action: 'modify' }], 'topic');
    expect(await ask([{ fileId: own.fileId, version: own.version }], 'topic')).toEqual([form(own)]);
    expect((await p.api.delete(`${branches}/topic`)).status).toBe(200);
    expect((await p.api.post(branches, { name: 'topic' })).status).toBe(201);
    // The new topic starts from main: the old one's commits are not on its lineage.
    const reused = await ask([{ fileId: level[0].fileId }, { fileId: own.fileId, version: own.version }], 'topic');
    expect(reused[0]).toEqual(form(level[3]));
    expect(reused[1]).toMatchObject({ fileId: own.fileId, code: 'version_not_found' });
  });

  it('answers deleted for a file deleted at the tip, and its earlier versions still', async () => {
    const [tip, earlier] = await ask([{ fileId: gone.fileId }, { fileId: gone.fileId, version: 1 }]);
    expect(tip).toEqual({ fileId: gone.fileId, path: gone.path, error: expect.any(String), code: 'deleted' });
    expect(earlier).toEqual(form(gone));
  });

  it('isolates each entry, in request order: malformed entries, unknown files and good ones side by side', async () => {
    const unknownId = randomUUID();
    const entries = [
      { fileId: level[0].fileId },
      {},
      { fileId: 'not-a-uuid' },
      { path: '../escape.bin' },
      { fileId: level[0].fileId, version: 0 },
      { path: 42 },
      'Levels/Forest.umap',
      null,
      { fileId: unknownId },
      { path: 'No/such/file.bin' },
      // Both named, but not the same file.
      { fileId: level[0].fileId, path: gone.path },
      { fileId: level[0].fileId.toUpperCase(), path: 'LEVELS/forest.umap', extra: 'ignored' },
      { fileId: level[0].fileId },
    ];
    const results = await ask(entries);
    const failed = (code: string, named: object = {}) => ({ ...named, error: expect.any(String), code });
    expect(results).toEqual([
      form(level[3]),
      failed('validation_failed'),
      failed('validation_failed', { fileId: 'not-a-uuid' }),
      failed('validation_failed', { path: '../escape.bin' }),
      failed('validation_failed', { fileId: level[0].fileId }),
      failed('validation_failed'),
      failed('validation_failed'),
      failed('validation_failed'),
      failed('not_found', { fileId: unknownId }),
      failed('not_found', { path: 'No/such/file.bin' }),
      failed('not_found', { fileId: level[0].fileId, path: gone.path }),
      form(level[3]),
      form(level[3]),
    ]);
  });

  it("answers another project's file ids and paths as not_found, with nothing of theirs", async () => {
    const other = await stack.seed.project();
    const theirs = await pushFile(other.api, other.projectId, 'Secret/plan.bin', randomBytes(32));
    const res = await other.api.post(`/api/v1/projects/${other.projectId}/commits`, {
      message: 'm',
      fileVersions: [{ fileId: theirs.fileId, version: 1, action: 'add' }],
    });
    expect(res.status).toBe(201);
    const results = await ask([{ fileId: theirs.fileId }, { path: 'Secret/plan.bin' }, { fileId: theirs.fileId, version: 1 }]);
    expect(results).toEqual([
      { fileId: theirs.fileId, error: expect.any(String), code: 'not_found' },
      { path: 'Secret/plan.bin', error: expect.any(String), code: 'not_found' },
      { fileId: theirs.fileId, error: expect.any(String), code: 'not_found' },
    ]);
    expect(JSON.stringify(results)).not.toContain(theirs.sha256);
    // And a project id in the path that is not the key's own is refused before anything is read.
    const foreign = await p.api.post(urls(other), { files: [{ fileId: theirs.fileId }] });
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body)).not.toContain(theirs.sha256);
  });

  it('answers 404 not_found for a branch that does not exist, and main before its first commit', async () => {
    const res = await p.api.post(urls(), { files: [{ fileId: level[0].fileId }], branch: 'no-such-branch' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'not_found', message: expect.stringContaining('no-such-branch') });
    const fresh = await stack.seed.project();
    const empty = await fresh.api.post(urls(fresh), { files: [{ path: 'a.bin' }] });
    expect(empty.status).toBe(200);
    expect(empty.body.results).toEqual([{ path: 'a.bin', error: expect.any(String), code: 'not_found' }]);
  });

  it.each([
    ['a body that is not an object', [{ fileId: randomUUID() }], 'body'],
    ['no files', {}, 'files'],
    ['files that are not an array', { files: { fileId: randomUUID() } }, 'files'],
    ['an empty files list', { files: [] }, 'files'],
    ['a bad branch name', { files: [{ fileId: randomUUID() }], branch: '../main' }, 'branch'],
  ])('answers 400 naming the field for %s', async (_name, body, field) => {
    const res = await p.api.post(urls(), body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.message).toContain(field);
  });

  it('answers 413 batch_too_large above 1,000 entries, as initiate-batch does', async () => {
    const files = Array.from({ length: download.MAX_DOWNLOAD_ENTRIES + 1 }, () => ({ fileId: randomUUID() }));
    const res = await p.api.post(urls(), { files });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: 'batch_too_large', max: 1000 });
  });

  it('is a read: it takes nothing from the write rate limit', async () => {
    // One write in a thousand seconds: the commit below spends it.
    const project = await stack.seed.project({ writeRateLimit: { perSecond: 0.001, burst: 1 } });
    const [version] = await seedConfirmedVersions(stack.databaseUrl, project, 1);
    await writeBulkBlobs(stack.storage, [version]);
    const commitsOf = `/api/v1/projects/${project.projectId}/commits`;
    const body = { message: 'm', fileVersions: [{ fileId: version.fileId, version: 1, action: 'add' }] };
    expect((await project.api.post(commitsOf, body)).status).toBe(201);
    for (let i = 0; i < 5; i++) {
      const res = await project.api.post(urls(project), { files: [{ fileId: version.fileId }] });
      expect(res.status).toBe(200);
      expect(res.body.results[0]).toMatchObject({ fileId: version.fileId, sha256: version.sha256 });
    }
    expect((await project.api.post(commitsOf, body)).status).toBe(429);
  });

  it("finds files committed before path keys were kept once the service has keyed them, by JavaScript's case folding", async () => {
    // Postgres's lower() folds these differently from the API (final sigma, dotted capital I).
    const file = await push('Ünits/ΑΣ İcon.bin', randomBytes(8));
    await commit([{ fileId: file.fileId, version: 1, action: 'add' }]);
    const asked = { path: 'ünits/ας i̇con.bin' };
    expect(await ask([asked])).toEqual([form(file)]);
    const db = new Database({ connectionString: stack.databaseUrl, schema: COMMIT_SCHEMA, max: 1 });
    try {
      // As migration 0010 leaves a file committed before it.
      await db.query('DELETE FROM file_paths WHERE file_id = $1', [file.fileId]);
      await db.query('INSERT INTO file_paths_unkeyed (project_id, file_id, path) VALUES ($1, $2, $3)', [p.projectId, file.fileId, file.path]);
      expect(await ask([asked])).toEqual([{ ...asked, error: expect.any(String), code: 'not_found' }]);
      expect(await keyUnkeyedPaths(db, new FilePathsRepository())).toBe(1);
      expect(await keyUnkeyedPaths(db, new FilePathsRepository())).toBe(0);
    } finally {
      await db.close();
    }
    expect(await ask([asked, { path: file.path }])).toEqual([form(file), form(file)]);
  });

  it('answers 1,000 entries in request order, each URL serving its own bytes', async () => {
    const project = await stack.seed.project();
    const versions = await seedConfirmedVersions(stack.databaseUrl, project, download.MAX_DOWNLOAD_ENTRIES);
    await writeBulkBlobs(stack.storage, versions);
    const committed = await project.api.post(`/api/v1/projects/${project.projectId}/commits`, {
      message: 'many',
      fileVersions: versions.map((v) => ({ fileId: v.fileId, version: v.version, action: 'add' })),
    });
    expect(committed.status).toBe(201);
    // Shuffled, half by id and half by path, so the order of the answer is the request's, not the tree's.
    const asked = versions
      .map((v, i) => ({ v, key: (i * 7919) % versions.length }))
      .sort((a, b) => a.key - b.key)
      .map(({ v }) => v);
    const files = asked.map((v, i) => (i % 2 === 0 ? { fileId: v.fileId } : { path: v.path.toUpperCase() }));
    const res = await project.api.post(urls(project), { files });
    expect(res.status).toBe(200);
    const results = res.body.results as download.DownloadForm[];
    expect(results.map((r) => r.fileId)).toEqual(asked.map((v) => v.fileId));
    expect(results.map((r) => r.sha256)).toEqual(asked.map((v) => v.sha256));
    for (const i of [0, 1, 499, 998, 999]) {
      const bytes = await fetchBytes(results[i].downloadUrl);
      expect(sha256(bytes)).toBe(asked[i].sha256);
      expect(bytes.equals(bulkContent(asked[i]))).toBe(true);
    }
  });
});

describe('batch download URLs on real S3', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local', storage: 's3' });
  });
  afterAll(async () => stack?.stop());

  it('answers URLs that S3 serves, whose bytes have the SHA-256 in the answer', async () => {
    const p = await stack.seed.project();
    const first = randomBytes(4096);
    const second = randomBytes(5000);
    const v1 = await pushFile(p.api, p.projectId, 'Textures/rock.png', first);
    await p.api.post(`/api/v1/projects/${p.projectId}/commits`, { message: 'a', fileVersions: [{ fileId: v1.fileId, version: 1, action: 'add' }] });
    const v2 = await pushFile(p.api, p.projectId, 'Textures/rock.png', second);
    await p.api.post(`/api/v1/projects/${p.projectId}/commits`, { message: 'b', fileVersions: [{ fileId: v2.fileId, version: 2, action: 'modify' }] });
    const res = await p.api.post(`/api/v1/projects/${p.projectId}/files/download-urls`, {
      files: [{ path: 'textures/ROCK.png' }, { fileId: v1.fileId, version: 1 }],
    });
    expect(res.status).toBe(200);
    const results = res.body.results as download.DownloadForm[];
    expect(results.map((r) => [r.version, r.sha256])).toEqual([
      [2, v2.sha256],
      [1, v1.sha256],
    ]);
    for (const [i, bytes] of [second, first].entries()) {
      const fetched = await fetchBytes(results[i].downloadUrl);
      expect(sha256(fetched)).toBe(results[i].sha256);
      expect(fetched.equals(bytes)).toBe(true);
    }
  });

  it('answers URLs that S3 serves as a download of the file, under its name, never as a page', async () => {
    const p = await stack.seed.project();
    const page = Buffer.from('<html><script>alert(document.domain)</script></html>');
    const file = await pushFile(p.api, p.projectId, 'Docs/Read me "now".html', page);
    await p.api.post(`/api/v1/projects/${p.projectId}/commits`, { message: 'a', fileVersions: [{ fileId: file.fileId, version: 1, action: 'add' }] });
    const res = await p.api.post(`/api/v1/projects/${p.projectId}/files/download-urls`, { files: [{ fileId: file.fileId }] });
    const history = await p.api.get(`/api/v1/projects/${p.projectId}/files/${file.fileId}/versions`);
    const urls = [(res.body.results as download.DownloadForm[])[0].downloadUrl, (history.body.data as { downloadUrl: string }[])[0].downloadUrl];
    for (const url of urls) {
      const served = await fetch(url);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('application/octet-stream');
      expect(served.headers.get('content-disposition')).toBe(`attachment; filename="Read me _now_.html"; filename*=UTF-8''Read%20me%20%22now%22.html`);
      expect(Buffer.from(await served.arrayBuffer()).equals(page)).toBe(true);
    }
  });
});
