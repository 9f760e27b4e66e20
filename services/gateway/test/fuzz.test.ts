import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareGatewayApp } from './bare-gateway.ts';
import { ROUTES, strayKeys, WEIGHTS } from './fuzz/catalogue.ts';
import { coverage, loggedErrors, reportFindings } from './fuzz/findings.ts';
import { controlChanges, seedFuzz, snapshotControl, type ControlSnapshot, type SeededFuzz } from './fuzz/fixtures.ts';
import { registeredRoutes, unlisted } from './fuzz/registered-routes.ts';
import { fuzzRequests, namedCases } from './fuzz/requests.ts';
import { runFuzz } from './fuzz/run-fuzz.ts';
import { createSender } from './fuzz/send.ts';
import { startTarget, type FuzzMode, type FuzzTarget } from './fuzz/targets.ts';
import { validRequests } from './fuzz/valid-requests.ts';

/**
 * Hostile and mostly-valid requests to every route (fuzz/catalogue.ts), in both ways Lode runs.
 * FUZZ_RUNS sets the requests per mode (5,000 by default: the seed is fixed, so every `npm test`
 * sends the same ones; a longer hunt raises FUZZ_RUNS and changes FUZZ_SEED). A failure names each
 * failing request's FUZZ_SEED and FUZZ_PATH, and running with both set (add -t 'embedded' or
 * -t 'multi-process') sends that request alone and prints fast-check's counterexample, shrunk.
 */

/** Fixed so that a failure reproduces. */
const SEED = Number(process.env.FUZZ_SEED ?? 22_061_347);
const RUNS = Number(process.env.FUZZ_RUNS ?? 5_000);
const PATH = process.env.FUZZ_PATH;
const CONCURRENCY = 8;
/** Past the server's own longest wait (a restore's 120 s, then 504), so only a hung server reaches it. */
const NO_ANSWER_MS = 150_000;

describe('the fuzz catalogue', () => {
  it('lists every route and mounted handler the gateway registers', async () => {
    const { app, close } = bareGatewayApp();
    try {
      const registered = registeredRoutes(app);
      expect(registered.length).toBeGreaterThan(20);
      expect(
        unlisted(
          registered,
          ROUTES.filter((r) => r.surface === 'api'),
        ),
      ).toEqual([]);
    } finally {
      await close();
    }
  });

  it('weighs only routes it lists', () => {
    expect(strayKeys(Object.keys(WEIGHTS))).toEqual([]);
  });
});

describe.each<FuzzMode>(['embedded', 'multi-process'])('fuzzing every route (%s)', (mode) => {
  let target: FuzzTarget;
  let seeded: SeededFuzz;
  let controlBefore: ControlSnapshot;

  beforeAll(async () => {
    target = await startTarget(mode);
    seeded = await seedFuzz(target.seeder, target.adminToken);
    controlBefore = await snapshotControl(seeded.control);
  }, 180_000);
  afterAll(async () => target?.stop());

  // The models are built from the seeded ids, so their keys are known only once the target runs.
  it('has a valid request for every catalogue route, and none for a route it does not list', () => {
    const models = validRequests(seeded.fixtures);
    expect({
      withoutValidRequest: ROUTES.filter((route) => !(route.key in models)).map((route) => `${route.key} (${route.method} ${route.path})`),
      validRequestWithoutRoute: strayKeys(Object.keys(models)),
    }).toEqual({ withoutValidRequest: [], validRequestWithoutRoute: [] });
  });

  it(`answers ${RUNS} hostile requests with no 5xx, no dropped connection and a JSON error on every 4xx; every process lives, the control project is untouched`, async () => {
    const started = performance.now();
    const sender = createSender({ api: target.apiPort, ops: target.opsPort }, { concurrency: CONCURRENCY, timeoutMs: NO_ANSWER_MS });
    const settings = { seed: SEED, runs: RUNS, path: PATH, concurrency: CONCURRENCY, tag: mode, examples: namedCases(seeded.fixtures) };
    const exchanges = await runFuzz(fuzzRequests(seeded.fixtures), sender, settings).finally(() => sender.close());
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`fuzz (${mode}): ${exchanges.length} requests in ${seconds} s, seed ${SEED}\n${coverage(exchanges)}`);

    const health = await target.health();
    const controlChanged = await snapshotControl(seeded.control).then(
      (after) => controlChanges(controlBefore, after),
      (error: unknown) => [`it could not be read: ${(error as Error).message}`],
    );
    const logs = loggedErrors(target.processes.map((p) => ({ name: p.name, output: p.output() })));
    const findings = reportFindings(exchanges, logs, (run) => `FUZZ_SEED=${SEED} FUZZ_PATH=${run}`);
    const failures = [
      findings && `Requests that failed (seed ${SEED}; replay one with the FUZZ_SEED and FUZZ_PATH shown, and -t '${mode}'):\n${findings}`,
      health.length > 0 && `Processes not healthy after the fuzz:\n${health.join('\n')}`,
      controlChanged.length > 0 && `The control project changed:\n${controlChanged.join('\n')}`,
    ].filter(Boolean);
    expect(failures.join('\n\n')).toBe('');
  }, 600_000);
});
