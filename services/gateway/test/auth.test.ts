import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, pushFile } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';

describe('API keys and devices', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local' });
  });
  afterAll(async () => stack?.stop());

  const validate = (client: ApiClient) => client.post('/api/v1/auth/validate-key');
  const anonymous = () => new ApiClient(stack.baseUrl);

  it('returns the flat caller identity for a valid key', async () => {
    const p = await stack.seed.project();
    const res = await validate(p.api);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      valid: true,
      userId: p.userId,
      userName: expect.any(String),
      userAvatarUrl: null,
      projectId: p.projectId,
      projectName: expect.any(String),
      projectSlug: expect.stringMatching(/^game-/),
      projectIconUrl: null,
      orgId: p.orgId,
      orgName: expect.any(String),
      orgSlug: expect.stringMatching(/^org-/),
    });
  });

  it.each([
    ['no Authorization header', {}, 'missing_key'],
    ['a malformed key', { authorization: 'Bearer nope' }, 'invalid_key'],
    ['an unknown key', { authorization: `Bearer lode_${'x'.repeat(40)}` }, 'invalid_key'],
    ['another scheme', { authorization: `Basic lode_${'x'.repeat(40)}` }, 'missing_key'],
  ])('answers 401 {valid:false} for %s', async (_, headers, code) => {
    const res = await validate(anonymous().withHeaders(headers));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ valid: false, code, message: expect.any(String) });
  });

  it('stops accepting a key as soon as it is revoked', async () => {
    const p = await stack.seed.project();
    expect((await validate(p.api)).status).toBe(200);
    expect((await stack.seed.admin.delete(`/admin/v1/keys/${p.keyId}`)).status).toBe(200);
    const res = await validate(p.api);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ valid: false, code: 'key_revoked' });
  });

  it('binds a key to the first device and refuses others, or none, with 403 device_mismatch', async () => {
    const p = await stack.seed.project();
    const bare = anonymous().withHeaders({ authorization: `Bearer ${p.key}` });
    expect((await validate(bare)).status).toBe(200); // unbound key works without a device id
    expect((await validate(bare.withHeaders({ 'x-device-id': 'laptop' }))).status).toBe(200);
    for (const [client, says] of [
      [bare.withHeaders({ 'x-device-id': 'desktop' }), 'bound to another device'],
      [bare, 'send its id in the X-Device-Id header'],
    ] as const) {
      const res = await validate(client);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ valid: false, code: 'device_mismatch', message: expect.stringContaining(says) });
    }
    const elsewhere = await bare.withHeaders({ 'x-device-id': 'desktop' }).post(`/api/v1/projects/${p.projectId}/files/upload/initiate`, {});
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body).toEqual({ code: 'device_mismatch', message: expect.any(String) });

    expect((await stack.seed.admin.post(`/admin/v1/keys/${p.keyId}/reset-device`)).status).toBe(200);
    expect((await validate(bare.withHeaders({ 'x-device-id': 'desktop' }))).status).toBe(200);
  });

  it('lets exactly one of two racing devices bind a fresh key', async () => {
    for (let round = 0; round < 5; round++) {
      const p = await stack.seed.project();
      const bare = anonymous().withHeaders({ authorization: `Bearer ${p.key}` });
      const results = await Promise.all(['a', 'b'].map((d) => validate(bare.withHeaders({ 'x-device-id': `${d}-${round}` }))));
      expect(results.map((r) => r.status).sort()).toEqual([200, 403]);
    }
  });

  it('serves its project named by an uppercase id, as the lowercase one (docs/api.md, Conventions)', async () => {
    const p = await stack.seed.project();
    const upper = p.projectId.toUpperCase();
    expect(await p.api.post(`/api/v1/projects/${upper}/sync`, { files: [] })).toMatchObject({ status: 200 });
    const file = await pushFile(p.api, upper, 'case/a.bin', Buffer.from('upper'));
    const commit = await p.api.post(`/api/v1/projects/${upper}/commits`, {
      message: 'm',
      fileVersions: [{ fileId: file.fileId, version: file.version, action: 'add' }],
    });
    expect(commit).toMatchObject({ status: 201, body: { sequenceNum: 1 } });
    const tree = await p.api.get(`/api/v1/projects/${p.projectId}/files?prefix=case/`);
    expect(tree.body.data).toEqual([expect.objectContaining({ path: 'case/a.bin', fileId: file.fileId })]);
  });

  it('answers 404 with no data for another project, or a malformed project id', async () => {
    const mine = await stack.seed.project();
    const theirs = await stack.seed.project();
    for (const projectId of [theirs.projectId, 'not-a-uuid']) {
      const res = await mine.api.post(`/api/v1/projects/${projectId}/files/upload/initiate`, {});
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'not_found', message: expect.any(String) });
    }
  });
});
