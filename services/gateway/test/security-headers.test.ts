import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type SeededProject } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';

describe('security headers: nothing sniffed, /docs not framed, secrets not cached', () => {
  let stack: TestStack;
  let p: SeededProject;
  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local' });
    p = await stack.seed.project({ role: 'owner' });
  });
  afterAll(async () => stack?.stop());

  it('marks API JSON answers, success and error alike, nosniff', async () => {
    const ok = await p.api.get(`/api/v1/projects/${p.projectId}/files`);
    const refused = await new ApiClient(stack.baseUrl).get(`/api/v1/projects/${p.projectId}/files`);
    const unknown = await new ApiClient(stack.baseUrl).get('/api/v1/nothing');
    expect([ok.status, refused.status, unknown.status]).toEqual([200, 401, 404]);
    for (const res of [ok, refused, unknown]) expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('serves /docs with a Content-Security-Policy that no other site may frame, nosniff', async () => {
    const res = await fetch(`${stack.baseUrl}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const policy = res.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("script-src 'self'");
  });

  it('answers every reply that carries a secret with Cache-Control: no-store', async () => {
    const admin = stack.seed.admin;
    const key = await admin.post(`/admin/v1/projects/${p.projectId}/keys`, { userId: p.userId });
    const link = await admin.post<{ url: string }>(`/admin/v1/users/${p.userId}/sign-in-links`);
    const token = new URL(link.body.url).hash.replace('#token=', '');
    const signIn = await new ApiClient(stack.baseUrl).post<{ csrfToken: string }>('/api/v1/session', { token });
    const browser = new ApiClient(stack.baseUrl, { cookie: (signIn.headers.get('set-cookie') ?? '').split(';')[0] }).withHeaders({
      'x-csrf-token': signIn.body.csrfToken,
    });
    const session = await browser.get('/api/v1/session');
    const dashboardKey = await browser.post(`/api/v1/projects/${p.projectId}/keys`, {});
    const webhook = await p.api.post(`/api/v1/projects/${p.projectId}/webhooks`, { url: 'https://ops.example.com/hook', events: ['branch.deleted'] });
    const replies = { key, link, signIn, session, dashboardKey, webhook };
    expect(Object.fromEntries(Object.entries(replies).map(([name, res]) => [name, res.status]))).toEqual({
      key: 201,
      link: 201,
      signIn: 201,
      session: 200,
      dashboardKey: 201,
      webhook: 201,
    });
    for (const [name, res] of Object.entries(replies)) expect(res.headers.get('cache-control'), name).toBe('no-store');
  });
});
