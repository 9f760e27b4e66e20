import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { pushFile, type SeededProject } from '@lode/testkit';

const LFS_TYPE = 'application/vnd.git-lfs+json';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A Git LFS client at the protocol level, authenticating as git-lfs does with a credential helper. */
class LfsCaller {
  readonly base: string;
  readonly authorization: string;

  constructor(baseUrl: string, project: SeededProject, prefix = project.projectId) {
    this.base = `${baseUrl}/lfs/${prefix}`;
    this.authorization = `Basic ${Buffer.from(`${project.deviceId}:${project.key}`).toString('base64')}`;
  }

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = { authorization: this.authorization }) {
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers: { accept: LFS_TYPE, ...(body === undefined ? {} : { 'content-type': LFS_TYPE }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }

  batch(operation: 'upload' | 'download', objects: unknown[], extra: object = {}) {
    return this.call('POST', '/objects/batch', { operation, transfers: ['basic'], objects, ...extra });
  }

  /** Uploads bytes as git-lfs does: batch, PUT with the action's headers, verify with its headers. */
  async push(bytes: Buffer, body: Buffer = bytes) {
    const oid = sha256(bytes);
    const { body: batch } = await this.batch('upload', [{ oid, size: bytes.length }]);
    const actions = batch.objects[0].actions;
    if (!actions) return { oid, uploaded: false, put: undefined, verify: undefined };
    const put = await fetch(actions.upload.href, { method: 'PUT', headers: actions.upload.header, body });
    await put.arrayBuffer();
    const verify = await fetch(actions.verify.href, {
      method: 'POST',
      headers: { ...actions.verify.header, 'content-type': LFS_TYPE, accept: LFS_TYPE },
      body: JSON.stringify({ oid, size: bytes.length }),
    });
    return { oid, uploaded: true, put: put.status, verify: verify.status, actions };
  }

  async download(oid: string, size: number) {
    const { body } = await this.batch('download', [{ oid, size }]);
    const object = body.objects[0];
    if (!object.actions) return { error: object.error };
    const got = await fetch(object.actions.download.href, { headers: object.actions.download.header ?? {} });
    return { bytes: Buffer.from(await got.arrayBuffer()) };
  }
}

describe.each(['local', 's3'] as const)('the Git LFS API at the protocol level (%s storage)', (storage) => {
  let stack: TestStack;
  let owner: SeededProject;
  let lfs: LfsCaller;

  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local', storage });
    owner = await stack.seed.project();
    lfs = new LfsCaller(stack.baseUrl, owner);
  }, 120_000);
  afterAll(async () => stack?.stop());

  it('challenges a request without credentials with LFS-Authenticate, in its own media type', async () => {
    const response = await lfs.call('POST', '/objects/batch', { operation: 'download', objects: [] }, {});
    expect(response.status).toBe(401);
    expect(response.headers.get('lfs-authenticate')).toBe('Basic realm="Lode"');
    expect(response.headers.get('content-type')).toContain(LFS_TYPE);
    expect(response.body).toMatchObject({ code: 'missing_key', message: expect.stringContaining('password'), request_id: expect.any(String) });
    const wrongKey = await lfs.call('GET', '/locks', undefined, {
      authorization: `Basic ${Buffer.from(`${owner.deviceId}:lode_${'x'.repeat(40)}`).toString('base64')}`,
    });
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.headers.get('lfs-authenticate')).toBe('Basic realm="Lode"');
  });

  it("reaches the key's own project by id or by slugs, and no other", async () => {
    const other = await stack.seed.project();
    expect((await new LfsCaller(stack.baseUrl, owner, other.projectId).call('GET', '/locks')).status).toBe(404);
    const identity = await owner.api.post('/api/v1/auth/validate-key', {});
    const bySlugs = new LfsCaller(stack.baseUrl, owner, `${identity.body.orgSlug}/${identity.body.projectSlug}`);
    expect((await bySlugs.call('GET', '/locks')).body).toEqual({ locks: [] });
    expect((await new LfsCaller(stack.baseUrl, owner, `${identity.body.orgSlug}/elsewhere`).call('GET', '/locks')).status).toBe(404);
  });

  it('answers malformed objects one by one and malformed requests as a whole', async () => {
    const known = randomBytes(10);
    await lfs.push(known);
    const { status, body } = await lfs.batch('download', [
      { oid: sha256(known), size: known.length },
      { oid: 'not-a-hash', size: 1 },
      { oid: sha256(randomBytes(4)), size: 4 },
    ]);
    expect(status).toBe(200);
    expect(body.transfer).toBe('basic');
    expect(body.objects[0].actions.download).toMatchObject({ href: expect.any(String), expires_in: 3600 });
    expect(body.objects[1].error.code).toBe(422);
    expect(body.objects[2].error).toEqual({ code: 404, message: expect.any(String) });

    const sha1 = await lfs.batch('download', [{ oid: sha256(known), size: known.length }], { hash_algo: 'sha1' });
    expect(sha1.body.objects[0].error.code).toBe(409);
    expect((await lfs.call('POST', '/objects/batch', { operation: 'download', transfers: ['tus'], objects: [] })).status).toBe(400);
    expect((await lfs.call('POST', '/objects/batch', { operation: 'delete', objects: [] })).status).toBe(400);
    const tooMany = Array.from({ length: 1001 }, () => ({ oid: sha256(known), size: 1 }));
    expect((await lfs.batch('download', tooMany)).status).toBe(413);
    expect((await lfs.call('POST', '/objects/verify', { oid: 'zz', size: 1 })).status).toBe(400);
  });

  it('admits an upload only once verify has read bytes that hash to its oid', async () => {
    const bytes = randomBytes(64 * 1024);
    const liar = await lfs.push(bytes, randomBytes(bytes.length));
    // The local driver refuses the PUT itself; a store that does not enforce the signed SHA-256 keeps
    // it, and verify refuses it.
    if (storage === 'local') expect(liar.put).toBe(400);
    else expect(liar.put !== 200 || liar.verify === 422).toBe(true);
    expect((await lfs.download(liar.oid, bytes.length)).error?.code).toBe(404);

    const honest = await lfs.push(bytes);
    expect([honest.put, honest.verify]).toEqual([200, 200]);
    expect(sha256((await lfs.download(honest.oid, bytes.length)).bytes!)).toBe(honest.oid);
    expect((await lfs.push(bytes)).uploaded).toBe(false);
  });

  it('keeps serving the verified bytes when the still-valid upload URL is used again with others', async () => {
    const bytes = randomBytes(4096);
    const pushed = await lfs.push(bytes);
    expect(pushed.verify).toBe(200);
    const again = await fetch(pushed.actions.upload.href, { method: 'PUT', headers: pushed.actions.upload.header, body: randomBytes(bytes.length) });
    await again.arrayBuffer();
    expect(sha256((await lfs.download(pushed.oid, bytes.length)).bytes!)).toBe(pushed.oid);
  });

  it("shares the project's content store with Lode's uploads, both ways, and with no other project", async () => {
    const fromGit = randomBytes(2048);
    await lfs.push(fromGit);
    const initiated = await owner.api.post(`/api/v1/projects/${owner.projectId}/files/upload/initiate`, {
      path: 'Art/from-git.psd',
      sha256: sha256(fromGit),
      size: fromGit.length,
      contentMd5: createHash('md5').update(fromGit).digest('base64'),
    });
    expect(initiated.body).toMatchObject({ dedup: true });

    const fromLode = randomBytes(3000);
    await pushFile(owner.api, owner.projectId, 'Art/from-lode.psd', fromLode);
    expect((await lfs.push(fromLode)).uploaded).toBe(false);
    expect((await lfs.download(sha256(fromLode), fromLode.length)).bytes).toEqual(fromLode);

    const stranger = await stack.seed.project();
    expect((await new LfsCaller(stack.baseUrl, stranger).download(sha256(fromLode), fromLode.length)).error?.code).toBe(404);
  });

  it('locks a path as a Lode lock, refuses another user, and lets only owners and admins force', async () => {
    const member = await stack.seed.member(owner.orgId, owner.projectId, 'member');
    const theirs = new LfsCaller(stack.baseUrl, member);
    const taken = await lfs.call('POST', '/locks', { path: 'Levels/Castle.umap' });
    expect(taken.status).toBe(201);
    expect(taken.body.lock).toMatchObject({
      path: 'Levels/Castle.umap',
      owner: { name: expect.any(String) },
      locked_at: expect.stringMatching(/T\d\d:\d\d:\d\dZ$/),
    });
    const lode = await owner.api.get(`/api/v1/projects/${owner.projectId}/locks`);
    expect(lode.body.data).toEqual([expect.objectContaining({ fileId: taken.body.lock.id, path: 'Levels/Castle.umap', isMine: true })]);

    const clash = await theirs.call('POST', '/locks', { path: 'levels/castle.UMAP' });
    expect(clash.status).toBe(409);
    expect(clash.body.lock.id).toBe(taken.body.lock.id);
    expect((await theirs.call('POST', '/locks/verify', {})).body).toMatchObject({ ours: [], theirs: [{ id: taken.body.lock.id }] });
    expect((await lfs.call('GET', `/locks?path=levels/castle.umap`)).body.locks).toHaveLength(1);
    expect((await lfs.call('GET', `/locks?id=${taken.body.lock.id}`)).body.locks).toHaveLength(1);
    expect((await lfs.call('GET', '/locks?id=nope')).body.locks).toEqual([]);

    expect((await theirs.call('POST', `/locks/${taken.body.lock.id}/unlock`, {})).status).toBe(403);
    expect((await theirs.call('POST', `/locks/${taken.body.lock.id}/unlock`, { force: true })).status).toBe(403);
    const admin = new LfsCaller(stack.baseUrl, await stack.seed.member(owner.orgId, owner.projectId, 'admin'));
    const forced = await admin.call('POST', `/locks/${taken.body.lock.id}/unlock`, { force: true });
    expect(forced).toMatchObject({ status: 200, body: { lock: { id: taken.body.lock.id } } });
    expect((await lfs.call('POST', `/locks/${taken.body.lock.id}/unlock`, {})).status).toBe(404);
    expect((await lfs.call('POST', '/locks', { path: '../escape' })).status).toBe(400);
  });
});
