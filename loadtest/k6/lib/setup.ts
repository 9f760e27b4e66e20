import { AdminApi, type Role } from './admin.ts';
import { boolEnv, intEnv, requiredEnv, stringEnv } from './env.ts';
import { apiFor, type Flow } from './flow.ts';
import { randomHex } from './ids.ts';
import { range } from './lists.ts';
import type { ProjectFixture, RunData } from './run-data.ts';

// The shared setup: through the admin API, one org per run (slug `k6-<run id>`), USERS users (the
// first an owner, the others members), one project per flow with a key for every user, then each
// flow's seed data. Every run makes its own org, so runs (and k6-operator runners, which each run
// setup) never share or collide.

function target(): { baseUrl: string; admin: AdminApi } {
  const baseUrl = requiredEnv('LODE_URL').replace(/\/+$/, '');
  return { baseUrl, admin: new AdminApi(baseUrl, requiredEnv('LODE_ADMIN_TOKEN')) };
}

export function createRun(flows: readonly Flow[]): RunData {
  const { baseUrl, admin } = target();
  const userCount = intEnv('USERS', 4, 1, 200);
  // The limiter is not what these tests measure: each project gets a budget it will not spend,
  // unless WRITE_RATE_PER_SECOND / WRITE_RATE_BURST are set to test the limiter itself.
  const writeRateLimit = {
    perSecond: intEnv('WRITE_RATE_PER_SECOND', 100_000, 1, 100_000),
    burst: intEnv('WRITE_RATE_BURST', 1_000_000, 1, 1_000_000),
  };
  const runId = `${Date.now().toString(36)}-${randomHex(3)}`;
  const org = admin.createOrg(`k6 load test ${runId}`, `k6-${runId}`);
  const users = range(userCount).map((i) => {
    const user = admin.createUser(`k6 user ${i + 1}`);
    const role: Role = i === 0 ? 'owner' : 'member';
    admin.addMember(org.id, user.id, role);
    return user;
  });

  const run: RunData = {
    baseUrl,
    deviceId: stringEnv('DEVICE_ID', `k6-${runId}`),
    runId,
    orgId: org.id,
    orgSlug: org.slug,
    projects: {},
  };
  for (const flow of flows) {
    const project = admin.createProject(org.id, `k6 ${flow.name}`, flow.name, writeRateLimit);
    const keys = users.map((user) => {
      const key = admin.createKey(project.id, user.id);
      return { keyId: key.id, key: key.key, userId: user.id };
    });
    const fixture: ProjectFixture = { projectId: project.id, slug: project.slug, keys, seed: null };
    run.projects[flow.name] = fixture;
    // Binds every key to this run's device id before any VU uses it, and proves each key works.
    for (const index of range(keys.length)) {
      const check = apiFor('setup', run, fixture, index).validateKey();
      if (check.outcome !== 'ok') throw new Error(`setup: key ${index + 1} of project ${flow.name} failed validate-key (${check.status})`);
    }
    fixture.seed = flow.seed(apiFor('setup', run, fixture, 0));
  }
  console.info(`Lode k6 run ${runId}: org ${org.slug} (${org.id}), ${userCount} users, projects ${flows.map((f) => f.name).join(', ')}`);
  return run;
}

/** Revokes every key the run made (KEEP_KEYS=true keeps them, to look around afterwards). */
export function endRun(run: RunData): void {
  if (boolEnv('KEEP_KEYS')) return;
  const { admin } = target();
  for (const project of Object.values(run.projects)) {
    for (const key of project?.keys ?? []) admin.revokeKey(key.keyId);
  }
  console.info(`Lode k6 run ${run.runId}: keys revoked; org ${run.orgSlug} (${run.orgId}) and its data stay (see loadtest/README.md, Cleanup)`);
}
