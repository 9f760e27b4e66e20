/**
 * Lode's benchmark harness: starts a deployment (or targets one with --url), measures the
 * machine's physical baselines, runs every scenario and prints one table per mode.
 *
 *   npm run bench -- [--mode embedded|nats|all] [--storage local|s3] [--quick] [--only a,b]
 *                    [--json PATH] [--url URL --admin-token TOKEN]
 *
 * --mode      embedded (default): `npm start`'s one process. nats: one process per service on NATS.
 *             all: embedded, then nats.
 * --storage   nats mode's blobs: s3 (default when Swift's s3api answers on :8070) or local disk.
 * --url       benchmark a running deployment through its admin and public APIs only (--admin-token
 *             or LODE_ADMIN_TOKEN); its legs are counted as a multi-process one's, the baselines are
 *             this machine's (DATABASE_URL, NATS_URL, REDIS_URL or the test defaults), and the
 *             commit and sync projects shrink to a tenth (every file is pushed through the API).
 * --only      scenarios by name: validate-key, lock-unlock, versions, initiate-batch, confirm-batch, push,
 *             push-memory, commit-1, commit-large, restore, download-urls, log-page, tree-page, sync,
 *             draft-commit, sdk-push, cli, workspace-status (lode status and push of 100 edits on 100,000
 *             small files, beside git status on the same tree), large-file (1 GiB up as one PUT and in parts, down in 1
 *             and 4 ranges, against bare storage), git-lfs (the stock git-lfs client beside lode push and pull;
 *             LODE_BENCH_GIT_LFS_FILES, _FILE_KIB and _BIG_MIB set its files), usage (GET /usage of a
 *             1,000,000-version project), gc (the object collector against bare storage DELETEs),
 *             retention (the rules' evaluation, a dry run over 1,000,000 versions;
 *             LODE_BENCH_RETENTION_VERSIONS sets another size).
 * --quick     a smoke run: small sizes, few rounds; its figures are not for quoting.
 * --json      writes {mode, baselines: {<name>: {p50Ms, p99Ms, opsPerSec}}, scenarios: [{name,
 *             opsPerSec, p50Ms, p99Ms, ratioToBaseline}]}; with --mode all, an array of one such
 *             object per mode, in running order.
 *
 * ratioToBaseline = scenario p50 / Σ (count × baseline p50) over the baselines one operation must
 * pass through (loadtest/bench/legs.ts and scenarios/hops.ts say which, and why).
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { connectBaselines, measureBaselines } from './baselines.ts';
import { HttpClient } from './client.ts';
import { s3Reachable, startEmbedded, startNats, targetExternal, type Deployment, type Mode } from './deployment.ts';
import { Fixtures } from './fixtures.ts';
import { legsFor } from './legs.ts';
import { profileFor } from './profile.ts';
import { formatReport, toJson, type ModeRun } from './report.ts';
import { SCENARIOS, type BenchContext, type ScenarioResult } from './scenarios/index.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'embedded' },
    storage: { type: 'string' },
    url: { type: 'string' },
    'admin-token': { type: 'string' },
    json: { type: 'string' },
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
});

const started = performance.now();
const log = (message: string) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s] ${message}\n`);

const selected = values.only ? values.only.split(',').map((s) => s.trim()) : SCENARIOS.map((s) => s.name);
const unknown = selected.filter((name) => !SCENARIOS.some((s) => s.name === name));
if (unknown.length > 0) fail(`unknown scenario(s) ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
if (values.storage !== undefined && values.storage !== 'local' && values.storage !== 's3') fail('--storage is local or s3');

const modes = values.url ? ['external' as const] : modesOf(values.mode);
log(
  values.url
    ? `target ${values.url}`
    : `mode ${modes.join(', then ')}${values.mode === 'embedded' ? ' (the default; --mode nats or --mode all for the others)' : ''}`,
);

const runs: ModeRun[] = [];
let failures = 0;
for (const mode of modes) {
  const run = await runMode(mode);
  process.stdout.write(`${formatReport(run)}\n`);
  runs.push(run);
}
if (values.json) {
  const json = runs.map(toJson);
  await writeFile(values.json, `${JSON.stringify(modes.length === 1 ? json[0] : json, null, 2)}\n`);
  log(`wrote ${values.json}`);
}
log(`done${failures > 0 ? `, ${failures} scenario(s) failed` : ''}`);
process.exitCode = failures > 0 ? 1 : 0;

async function runMode(mode: Mode): Promise<ModeRun> {
  log(`${mode}: starting the deployment`);
  const deployment = await deploy(mode);
  const http = new HttpClient(128);
  try {
    const fixtures = new Fixtures(deployment, http);
    const profile = profileFor(values.quick, fixtures.bulk);
    log(`${mode}: measuring the baselines`);
    const baselineCalls = await connectBaselines(http, deployment.baselineTargets);
    try {
      const baselines = await measureBaselines(baselineCalls, profile.small);
      const ctx: BenchContext = {
        mode,
        profile,
        deployment,
        fixtures,
        http,
        baselineCalls: baselineCalls.call,
        legs: (hops) => legsFor(mode, hops),
        log: (m) => log(`${mode}: ${m}`),
      };
      const scenarios: ScenarioResult[] = [];
      for (const scenario of SCENARIOS.filter((s) => selected.includes(s.name))) {
        log(`${mode}: ${scenario.name}`);
        try {
          scenarios.push(...(await scenario.run(ctx)));
        } catch (error) {
          failures++;
          log(`${mode}: ${scenario.name} FAILED: ${(error as Error).stack ?? String(error)}`);
        }
      }
      return { mode, description: describe(deployment, profile.name, fixtures.bulk), profile, baselines, scenarios };
    } finally {
      await baselineCalls.close();
    }
  } finally {
    http.close();
    log(`${mode}: stopping the deployment`);
    await deployment.stop();
  }
}

async function deploy(mode: Mode): Promise<Deployment> {
  switch (mode) {
    case 'embedded':
      return startEmbedded();
    case 'nats': {
      const storage = values.storage === 'local' || values.storage === 's3' ? values.storage : (await s3Reachable()) ? 's3' : 'local';
      return startNats(storage);
    }
    case 'external': {
      const token = values['admin-token'] ?? process.env.LODE_ADMIN_TOKEN;
      if (!values.url || !token) return fail('--url needs --admin-token (or LODE_ADMIN_TOKEN)');
      return targetExternal(values.url, token);
    }
  }
}

function describe(deployment: Deployment, profile: string, bulk: boolean): string {
  const what = {
    embedded: 'embedded: one process (npm start): embedded Postgres, in-process bus, memory rate limit',
    nats: 'nats: one process per service on NATS, the machine’s Postgres, Redis rate limit',
    external: `external: ${deployment.baseUrl} through its admin and public APIs; baselines from this machine`,
  }[deployment.mode];
  const blobs = deployment.storage === 'storage unknown' ? '' : `; blobs: ${deployment.storage}`;
  return `${what}${blobs}; profile ${profile}${bulk || profile === 'quick' ? '' : ' (setup through the API: commit and sync at a tenth of the size)'}`;
}

function modesOf(mode: string): Mode[] {
  if (mode === 'all') return ['embedded', 'nats'];
  if (mode === 'embedded' || mode === 'nats') return [mode];
  return fail(`--mode is embedded, nats or all, not ${mode}`);
}

function fail(message: string): never {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}
