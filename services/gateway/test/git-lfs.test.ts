import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushFile, readResponse, type ApiResponse, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { GitLfsRepo, initBare, requireGitLfs, type LfsAuth } from './git-lfs-repo.ts';

/**
 * The stock git-lfs client (Debian's package) against Lode's Git LFS server: pushes, clones, locks
 * and the protocol's edges as a team using plain git would meet them. git-lfs is a required tool
 * here, never a reason to skip.
 */

const LFS_MEDIA_TYPE = 'application/vnd.git-lfs+json';
const MiB = 1024 * 1024;
/** Each step starts git and git-lfs processes and moves real bytes, seconds apiece on a loaded machine. */
const TIMEOUT = 300_000;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** git-lfs logs every HTTP request it makes when GIT_TRACE is set, as `HTTP: <METHOD> <url>`. */
const requestsIn = (trace: string, method: string) => trace.split('\n').filter((line) => line.includes(`HTTP: ${method} `));

// The two ways to run: embedded (in-process bus, local blobs, in-memory limiter) and the
// multi-process setup's servers (NATS, Swift's S3, the Redis limiter).
describe.each([
  { bus: 'local', storage: 'local', limiter: 'memory' },
  { bus: 'nats', storage: 's3', limiter: 'redis' },
] as const)('the stock git-lfs client against Lode ($bus bus, $storage storage)', ({ bus, storage, limiter }) => {
  let stack: TestStack;
  let root: string;
  let folders = 0;

  beforeAll(async () => {
    requireGitLfs();
    root = await mkdtemp(path.join(tmpdir(), 'lode-git-lfs-'));
    stack = await startTestStack({ bus, storage, limiter });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  const lfsUrl = (p: SeededProject) => `${stack.baseUrl}/lfs/${p.projectId}`;
  const basic = (p: SeededProject, deviceId = p.deviceId): LfsAuth => ({ kind: 'basic', deviceId, key: p.key });
  const bearer = (p: SeededProject): LfsAuth => ({ kind: 'bearer', deviceId: p.deviceId, key: p.key });

  /** A folder of its own under the run's temp dir, with a HOME beside the working copy. */
  const folder = (name: string) => {
    const base = path.join(root, `${++folders}-${name}`);
    return { work: path.join(base, 'work'), home: path.join(base, 'home') };
  };

  /** A bare remote and a first working copy pushing to it, authenticating as `p`. */
  async function newRepo(p: SeededProject, auth: LfsAuth = basic(p)): Promise<{ origin: string; repo: GitLfsRepo }> {
    const { work, home } = folder('repo');
    const origin = await initBare(path.join(path.dirname(work), 'origin.git'), home);
    return { origin, repo: await GitLfsRepo.init(work, origin, { lfsUrl: lfsUrl(p), auth, home }) };
  }

  /** Another working copy of the remote: pointer files until its own `git lfs pull`. */
  async function cloneOf(origin: string, p: SeededProject, auth: LfsAuth = basic(p)): Promise<GitLfsRepo> {
    const { work, home } = folder('clone');
    return GitLfsRepo.clone(origin, work, { lfsUrl: lfsUrl(p), auth, home });
  }

  const basicHeader = (p: SeededProject, deviceId = p.deviceId) => `Basic ${Buffer.from(`${deviceId}:${p.key}`).toString('base64')}`;

  /** A call of the LFS API as git-lfs makes it: its media type both ways, Basic credentials unless replaced. */
  async function lfsCall(url: string, body: unknown, headers: Record<string, string>): Promise<ApiResponse> {
    const response = await fetch(url, {
      method: 'POST',
      headers: { accept: LFS_MEDIA_TYPE, 'content-type': LFS_MEDIA_TYPE, ...headers },
      body: JSON.stringify(body),
    });
    return readResponse(response);
  }

  const batch = (p: SeededProject, operation: 'upload' | 'download', objects: { oid: string; size: number }[], headers = { authorization: basicHeader(p) }) =>
    lfsCall(`${lfsUrl(p)}/objects/batch`, { operation, transfers: ['basic'], objects, hash_algo: 'sha256' }, headers);

  const expectLfsMediaType = (res: ApiResponse) => expect(res.headers.get('content-type')).toMatch(/^application\/vnd\.git-lfs\+json/);

  /** What the remote's main branch points at. */
  const remoteHead = async (repo: GitLfsRepo) => (await repo.ok(['ls-remote', 'origin', 'refs/heads/main'])).stdout.split('\t')[0];

  it(
    'pushes 50 files including one of 100 MB, a fresh clone pulls them byte for byte, and asking again transfers nothing',
    async () => {
      const ada = await stack.seed.project();
      const bo = await stack.seed.member(ada.orgId, ada.projectId, 'member');
      const { origin, repo } = await newRepo(ada);
      await repo.ok(['lfs', 'track', '*.bin', '*.psd']);
      const files = new Map<string, string>();
      files.set('video/intro.bin', await repo.writeRandom('video/intro.bin', 100 * MiB));
      for (let i = 1; i < 50; i++) {
        const name = i % 2 ? `art/layer-${i}.psd` : `data/chunk-${i}.bin`;
        files.set(name, await repo.writeRandom(name, 1 + ((i * 7919) % 200_000)));
      }
      await repo.write('README.md', 'kept in git itself\n');
      await repo.commitAll('fifty files');
      const tracked = (await repo.ok(['lfs', 'ls-files', '--name-only'])).stdout.trim().split('\n');
      expect(tracked.sort()).toEqual([...files.keys()].sort());
      await repo.ok(['push', '-u', 'origin', 'main']);

      const clone = await cloneOf(origin, bo);
      expect(await clone.sha256('video/intro.bin')).not.toBe(files.get('video/intro.bin'));
      await clone.ok(['lfs', 'pull']);
      for (const [name, sha] of files) expect(await clone.sha256(name), name).toBe(sha);
      expect((await clone.ok(['status', '--porcelain'])).stdout).toBe('');

      // Every object offered again: Lode answers each with no action. The trace lists each HTTP
      // request git-lfs makes, so batch requests for all 50 objects followed by no PUT and no verify
      // show that nothing was transferred, whatever the progress meter prints.
      const again = await repo.ok(['lfs', 'push', '--object-id', 'origin', ...files.values()], { GIT_TRACE: '1' });
      const batched = [...again.stderr.matchAll(/tq: sending batch of size (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
      expect(batched).toBe(50);
      expect(requestsIn(again.stderr, 'POST').filter((line) => line.endsWith('/objects/batch')).length).toBeGreaterThan(0);
      expect(requestsIn(again.stderr, 'PUT')).toEqual([]);
      expect(again.stderr).not.toContain('/objects/verify');
    },
    2 * TIMEOUT,
  );

  it(
    'answers an anonymous request 401 with LFS-Authenticate, and git-lfs then authenticates from the credential store',
    async () => {
      const p = await stack.seed.project();
      const anonymous = await readResponse(await fetch(`${lfsUrl(p)}/locks`, { headers: { accept: LFS_MEDIA_TYPE } }));
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('lfs-authenticate')).toBe('Basic realm="Lode"');
      expectLfsMediaType(anonymous);
      expect(anonymous.body).toMatchObject({ message: expect.any(String), request_id: expect.any(String) });

      const { repo } = await newRepo(p);
      await repo.ok(['lfs', 'locks']);
      // git-lfs records the scheme a 401 asked for, and answered it from the store.
      expect((await repo.ok(['config', '--get-regexp', '^lfs\\..*\\.access$'])).stdout).toContain(`lfs.${lfsUrl(p)}.access basic`);
    },
    TIMEOUT,
  );

  it(
    'authenticates a Bearer key with X-Device-Id sent as extra headers, with no credential helper at all',
    async () => {
      const p = await stack.seed.project();
      const { origin, repo } = await newRepo(p, bearer(p));
      await repo.ok(['lfs', 'track', '*.bin']);
      const sha = await repo.writeRandom('level.bin', 300_000);
      await repo.commitAll('one file');
      await repo.ok(['push', '-u', 'origin', 'main']);
      await repo.ok(['lfs', 'locks']);

      const clone = await cloneOf(origin, p, bearer(p));
      await clone.ok(['lfs', 'pull']);
      expect(await clone.sha256('level.bin')).toBe(sha);
    },
    TIMEOUT,
  );

  it(
    "refuses another device with a key already bound to one, and git-lfs shows the server's message",
    async () => {
      const p = await stack.seed.project();
      // The seeded client's first request binds the key to its device.
      expect((await p.api.get(`/api/v1/projects/${p.projectId}/locks`)).status).toBe(200);
      const elsewhere = 'another-laptop';
      const refused = await lfsCall(`${lfsUrl(p)}/locks/verify`, {}, { authorization: basicHeader(p, elsewhere) });
      expect(refused.status).toBe(403);
      expectLfsMediaType(refused);
      expect(refused.body).toMatchObject({ code: 'device_mismatch', message: expect.stringMatching(/device/i), request_id: expect.any(String) });
      // X-Device-Id, when sent, names the device rather than the Basic user name.
      const named = await lfsCall(`${lfsUrl(p)}/locks/verify`, {}, { authorization: basicHeader(p, elsewhere), 'x-device-id': p.deviceId });
      expect(named.status).toBe(200);

      const { repo } = await newRepo(p, basic(p, elsewhere));
      await repo.ok(['lfs', 'track', '*.bin']);
      await repo.writeRandom('a.bin', 1000);
      await repo.commitAll('from the other laptop');
      const push = await repo.git(['push', '-u', 'origin', 'main']);
      expect(push.code).not.toBe(0);
      expect(push.stderr).toContain(refused.body.message);
      const locks = await repo.lfs(['locks']);
      expect(locks.code).not.toBe(0);
      expect(locks.stderr).toContain(refused.body.message);
    },
    TIMEOUT,
  );

  it(
    'locks files as Lode locks: listed and verified by git-lfs, a push over them stopped, released by the holder or forced by an owner only',
    async () => {
      const ada = await stack.seed.project();
      const boName = `Bo ${randomBytes(3).toString('hex')}`;
      const bo = await stack.seed.member(ada.orgId, ada.projectId, 'member', boName);
      const { origin, repo: adaRepo } = await newRepo(ada);
      await adaRepo.ok(['lfs', 'track', '*.psd']);
      await adaRepo.writeRandom('art/hero.psd', 20_000);
      await adaRepo.writeRandom('art/map.psd', 20_000);
      await adaRepo.commitAll('art');
      await adaRepo.ok(['push', '-u', 'origin', 'main']);
      const boRepo = await cloneOf(origin, bo);
      await boRepo.ok(['lfs', 'pull']);

      const locked = await boRepo.ok(['lfs', 'lock', 'art/hero.psd'], { GIT_TRACE: '1' });
      expect(locked.stdout).toContain('Locked art/hero.psd');
      expect(locked.stderr).toMatch(/HTTP: 201\b/);
      const listed = JSON.parse((await boRepo.ok(['lfs', 'locks', '--json'])).stdout);
      expect(listed).toEqual([{ id: expect.any(String), path: 'art/hero.psd', owner: { name: boName }, locked_at: expect.any(String) }]);
      const lockId: string = listed[0].id;
      expect((await adaRepo.ok(['lfs', 'locks'])).stdout).toMatch(new RegExp(`^art/hero\\.psd\\s+${boName}\\s+ID:${lockId}$`, 'm'));
      // locks/verify tells the holder's locks (marked O) from everyone else's.
      expect((await boRepo.ok(['lfs', 'locks', '--verify'])).stdout).toMatch(/^O art\/hero\.psd\s/m);
      expect((await adaRepo.ok(['lfs', 'locks', '--verify'])).stdout).toMatch(/^ {2}art\/hero\.psd\s/m);
      // The same lock in Lode's own API: its id is the file's.
      const lodeLocks = await ada.api.get(`/api/v1/projects/${ada.projectId}/locks`);
      expect(lodeLocks.status).toBe(200);
      expect(lodeLocks.body.data).toEqual([
        expect.objectContaining({ fileId: lockId, path: 'art/hero.psd', userId: bo.userId, userName: boName, isMine: false }),
      ]);

      // Ada's push of a change to Bo's locked file stops in git-lfs's lock verification.
      const before = await remoteHead(adaRepo);
      await adaRepo.writeRandom('art/hero.psd', 21_000);
      await adaRepo.commitAll('ada edits the hero');
      // git-lfs lists the locked files on its output and ends with its error on stderr.
      const stopped = await adaRepo.git(['push', 'origin', 'main']);
      expect(stopped.code).not.toBe(0);
      expect(stopped.stdout).toContain(`Unable to push locked files:\n* art/hero.psd - ${boName}`);
      expect(stopped.stderr).toContain('Cannot update locked files.');
      expect(await remoteHead(adaRepo)).toBe(before);
      // Bo holds the lock: his push of the same file goes through.
      await boRepo.writeRandom('art/hero.psd', 22_000);
      await boRepo.commitAll('bo edits the hero');
      await boRepo.ok(['push', 'origin', 'main']);
      expect(await remoteHead(adaRepo)).toBe((await boRepo.ok(['rev-parse', 'HEAD'])).stdout.trim());

      // Another user's lock: nobody releases it without --force, and a member not even with it.
      expect((await adaRepo.lfs(['unlock', 'art/hero.psd'])).code).not.toBe(0);
      await adaRepo.ok(['lfs', 'lock', 'art/map.psd']);
      for (const args of [
        ['unlock', 'art/map.psd'],
        ['unlock', '--force', 'art/map.psd'],
      ]) {
        const refused = await boRepo.lfs(args);
        expect(refused.code, args.join(' ')).not.toBe(0);
        expect(refused.stderr, args.join(' ')).not.toBe('');
      }
      const stillLocked = JSON.parse((await boRepo.ok(['lfs', 'locks', '--json'])).stdout) as { path: string }[];
      expect(stillLocked.map((l) => l.path).sort()).toEqual(['art/hero.psd', 'art/map.psd']);
      // An owner forces Bo's; Ada releases her own.
      expect((await adaRepo.ok(['lfs', 'unlock', '--force', 'art/hero.psd'])).stdout).toContain('Unlocked art/hero.psd');
      expect((await adaRepo.ok(['lfs', 'unlock', 'art/map.psd'])).stdout).toContain('Unlocked art/map.psd');
      expect(JSON.parse((await boRepo.ok(['lfs', 'locks', '--json'])).stdout)).toEqual([]);
      expect((await ada.api.get(`/api/v1/projects/${ada.projectId}/locks`)).body.data).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'never serves an object whose uploaded bytes do not hash to its oid',
    async () => {
      const p = await stack.seed.project();
      const bytes = randomBytes(4096);
      const object = { oid: sha256(bytes), size: bytes.length };
      const offer = async () => {
        const res = await batch(p, 'upload', [object]);
        expect(res.status).toBe(200);
        expectLfsMediaType(res);
        expect(res.body).toMatchObject({ transfer: 'basic', hash_algo: 'sha256' });
        const [answer] = res.body.objects;
        expect(answer).toMatchObject({ ...object, actions: { upload: { href: expect.any(String) }, verify: { href: `${lfsUrl(p)}/objects/verify` } } });
        return answer.actions as Record<'upload' | 'verify', { href: string; header?: Record<string, string> }>;
      };
      const put = (action: { href: string; header?: Record<string, string> }, body: Buffer) =>
        fetch(action.href, { method: 'PUT', headers: action.header ?? {}, body }).then(async (res) => ({ status: res.status, text: await res.text() }));
      // The verify action carries its own authorization, as git-lfs sends it: no other credentials.
      const verify = (action: { href: string; header?: Record<string, string> }) => lfsCall(action.href, object, action.header ?? {});

      // Other bytes of the same size: a store that checks the digest refuses the PUT; if it was
      // stored, verify finds the mismatch. Either way verify admits nothing and nothing can be downloaded.
      const first = await offer();
      const wrong = await put(first.upload, randomBytes(bytes.length));
      const verified = await verify(first.verify);
      if (wrong.status === 200) {
        expect(verified).toMatchObject({ status: 422 });
      } else {
        expect(wrong.status, wrong.text).toBeGreaterThanOrEqual(400);
        expect(wrong.status, wrong.text).toBeLessThan(500);
        expect(verified.status, JSON.stringify(verified.body)).toBeGreaterThanOrEqual(400);
        expect(verified.status, JSON.stringify(verified.body)).toBeLessThan(500);
      }
      expectLfsMediaType(verified);
      const download = await batch(p, 'download', [object]);
      expect(download.status).toBe(200);
      expect(download.body.objects).toEqual([{ ...object, error: { code: 404, message: expect.any(String) } }]);

      // A later upload gets a fresh action; the right bytes then verify and download.
      const second = await offer();
      expect(await put(second.upload, bytes)).toMatchObject({ status: 200 });
      expect(await verify(second.verify)).toMatchObject({ status: 200, body: object });
      const ready = await batch(p, 'download', [object]);
      const [answer] = ready.body.objects;
      expect(answer).toMatchObject({ ...object, authenticated: true, actions: { download: { href: expect.any(String) } } });
      const fetched = await fetch(answer.actions.download.href, { headers: answer.actions.download.header ?? {} });
      expect(fetched.status).toBe(200);
      expect(Buffer.from(await fetched.arrayBuffer()).equals(bytes)).toBe(true);
    },
    TIMEOUT,
  );

  it(
    "answers writes beyond the project's limit 429 with Retry-After, which git-lfs waits out to finish its push",
    async () => {
      // One write per 30 seconds, a burst of one: a write soon after another is refused, however
      // slow the machine is.
      const p = await stack.seed.project({ writeRateLimit: { perSecond: 1 / 30, burst: 1 } });
      const probe = [{ oid: sha256(randomBytes(16)), size: 16 }];
      expect((await batch(p, 'upload', probe)).status).toBe(200);
      const limited = await batch(p, 'upload', probe);
      expect(limited.status).toBe(429);
      expectLfsMediaType(limited);
      expect(limited.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(limited.body).toMatchObject({ message: expect.any(String), request_id: expect.any(String) });
      // Reads are not writes: a download batch and a lock listing still answer.
      expect((await batch(p, 'download', probe)).status).toBe(200);
      expect((await lfsCall(`${lfsUrl(p)}/locks/verify`, {}, { authorization: basicHeader(p) })).status).toBe(200);

      // git-lfs asks for at most 100 objects per batch, so 101 files take two upload batches, each
      // one write; at least one comes within 30 s of another and is refused. The trace shows the
      // 429 and the retry git-lfs scheduled for it; the push still completes.
      const { repo } = await newRepo(p);
      await repo.ok(['lfs', 'track', '*.bin']);
      const objects: { oid: string; size: number }[] = [];
      for (let i = 0; i < 101; i++) objects.push({ oid: await repo.writeRandom(`many/${i}.bin`, 100 + i), size: 100 + i });
      await repo.commitAll('101 small files');
      const pushed = await repo.ok(['push', '-u', 'origin', 'main'], { GIT_TRACE: '1' });
      expect(pushed.stderr).toMatch(/HTTP: 429\b/);
      expect(pushed.stderr).toMatch(/tq: enqueue retry #\d+ after/);
      const download = await batch(p, 'download', objects);
      expect(download.status).toBe(200);
      expect(download.body.objects.filter((o: { actions?: unknown }) => !o.actions)).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    "shares the project's content store with Lode: neither side uploads content the other already holds",
    async () => {
      const p = await stack.seed.project();
      const fromLode = randomBytes(50_000);
      await pushFile(p.api, p.projectId, 'lode/shared.bin', fromLode);
      const offered = await batch(p, 'upload', [{ oid: sha256(fromLode), size: fromLode.length }]);
      expect(offered.status).toBe(200);
      expect(offered.body.objects).toHaveLength(1);
      expect(offered.body.objects[0]).toMatchObject({ oid: sha256(fromLode), size: fromLode.length });
      expect(offered.body.objects[0].actions).toBeUndefined();
      expect(offered.body.objects[0].error).toBeUndefined();

      // git-lfs pushes both files, but only the one Lode has not seen is PUT.
      const { origin, repo } = await newRepo(p);
      await repo.ok(['lfs', 'track', '*.bin']);
      await repo.write('assets/shared.bin', fromLode);
      const fromGit = randomBytes(60_000);
      await repo.write('assets/from-git.bin', fromGit);
      await repo.commitAll('one old, one new');
      const pushed = await repo.ok(['push', '-u', 'origin', 'main'], { GIT_TRACE: '1' });
      expect(requestsIn(pushed.stderr, 'PUT')).toHaveLength(1);
      const clone = await cloneOf(origin, p);
      await clone.ok(['lfs', 'pull']);
      expect(await clone.sha256('assets/shared.bin')).toBe(sha256(fromLode));
      expect(await clone.sha256('assets/from-git.bin')).toBe(sha256(fromGit));

      // Content pushed through LFS is content Lode deduplicates against.
      expect((await pushFile(p.api, p.projectId, 'lode/from-git.bin', fromGit)).dedup).toBe(true);
    },
    TIMEOUT,
  );
});
