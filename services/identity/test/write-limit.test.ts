import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { ApiClient, type SeededProject } from '@lode/testkit';

/** The operator's write limit here: every project's default, and the most an owner may set. */
const OPERATOR = { perSecond: 20, burst: 40 };
/** The gateway's default, set apart from the identity service's cap so that each value is seen to come from where it applies. */
const GATEWAY_DEFAULT = { perSecond: 30, burst: 60 };

/** A dashboard session of `userId`, with its CSRF header, through a one-time sign-in link. */
async function signIn(stack: TestStack, userId: string): Promise<ApiClient> {
  const link = await stack.seed.admin.post<{ url: string }>(`/admin/v1/users/${userId}/sign-in-links`);
  const token = new URL(link.body.url).hash.replace('#token=', '');
  const res = await new ApiClient(stack.baseUrl).post('/api/v1/session', { token });
  expect(res.status).toBe(201);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
  return new ApiClient(stack.baseUrl, { cookie, 'x-csrf-token': res.body.csrfToken as string });
}

describe("a project's write limit set from the dashboard is capped at the operator's", () => {
  let stack: TestStack;
  let owner: SeededProject;
  let dashboard: ApiClient;
  const limitOf = async () => (await dashboard.get(`/api/v1/projects/${owner.projectId}/overview`)).body.project.writeRateLimit;
  const setLimit = (writeRateLimit: { perSecond: number; burst: number } | null) =>
    dashboard.request('PUT', `/api/v1/projects/${owner.projectId}/write-rate-limit`, { writeRateLimit });

  beforeAll(async () => {
    stack = await startTestStack({
      bus: 'local',
      environment: { LODE_WRITE_RATE_PER_SECOND: String(OPERATOR.perSecond), LODE_WRITE_RATE_BURST: String(OPERATOR.burst) },
      defaultWriteLimit: GATEWAY_DEFAULT,
    });
    owner = await stack.seed.project({ role: 'owner' });
    dashboard = await signIn(stack, owner.userId);
  });
  afterAll(async () => stack?.stop());

  it('refuses a rate or a burst over the maximum with 400 naming it, and leaves the limit as it was', async () => {
    for (const [limit, path] of [
      [{ perSecond: 100_000, burst: OPERATOR.burst }, 'writeRateLimit.perSecond'],
      [{ perSecond: OPERATOR.perSecond + 0.5, burst: OPERATOR.burst }, 'writeRateLimit.perSecond'],
      [{ perSecond: OPERATOR.perSecond, burst: OPERATOR.burst + 1 }, 'writeRateLimit.burst'],
    ] as const) {
      const refused = await setLimit(limit);
      expect(refused, JSON.stringify(limit)).toMatchObject({
        status: 400,
        body: { code: 'validation_failed', maximum: OPERATOR, issues: [{ path }] },
      });
      expect(refused.body.message).toContain(path.endsWith('perSecond') ? `${OPERATOR.perSecond} writes per second` : `bursts of ${OPERATOR.burst}`);
      expect(await limitOf()).toBeNull();
    }
  });

  it('tells the dashboard the default in force (the gateway applies it) and the most an owner may set (this service refuses more)', async () => {
    const overview = await dashboard.get(`/api/v1/projects/${owner.projectId}/overview`);
    expect(overview).toMatchObject({
      status: 200,
      body: { project: { writeRateLimit: null }, defaultWriteRateLimit: GATEWAY_DEFAULT, maxWriteRateLimit: OPERATOR },
    });
  });

  it('takes the maximum itself, a lower limit, and the default back', async () => {
    for (const limit of [OPERATOR, { perSecond: 2.5, burst: 5 }, null]) {
      expect(await setLimit(limit), JSON.stringify(limit)).toMatchObject({ status: 200, body: { writeRateLimit: limit } });
      expect(await limitOf()).toEqual(limit);
    }
  });

  it("leaves raising a project over it to the operator's admin API", async () => {
    const raised = await stack.seed.project({ role: 'owner', writeRateLimit: { perSecond: 1000, burst: 2000 } });
    const admin = await signIn(stack, raised.userId);
    expect(
      await admin.request('PUT', `/api/v1/projects/${raised.projectId}/write-rate-limit`, { writeRateLimit: { perSecond: 1000, burst: 2000 } }),
    ).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
  });
});
