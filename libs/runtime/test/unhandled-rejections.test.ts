import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assertNoUnhandledRejections, freePort, spawnService, untilProcessShows, untilReady, type ServiceProcess } from '@lode/testkit';

const REQUEST_ID = 'req-unhandled-fixture';

describe('guardUnhandledRejections in a real Node 24 process', () => {
  const started: ServiceProcess[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((p) => p.kill()));
  });

  it('logs a fatal line with the stack and the request id, counts it, and keeps the process serving', async () => {
    const port = await freePort();
    const proc = spawnService(
      'rejecting-process',
      { LODE_OPS_PORT: String(port), FIXTURE_REQUEST_ID: REQUEST_ID },
      path.join(import.meta.dirname, 'fixtures/rejecting-process.ts'),
    );
    started.push(proc);
    await untilReady(proc, { restarts: 0 });
    await untilProcessShows(proc, () => proc.unhandledRejections().length > 0, 'the fatal line');

    const [line] = proc.unhandledRejections();
    expect(line).toMatchObject({ level: 60, service: 'rejecting-process', request_id: REQUEST_ID, err: { message: 'value out of range for type integer' } });
    expect((line.err as { stack: string }).stack).toMatch(/lookUpVersions .*rejecting-process\.ts/);

    // Still serving after it: the ops port answers, and its metrics counted the rejection.
    expect((await fetch(`${proc.opsUrl}/healthz`)).status).toBe(200);
    const metrics = await (await fetch(`${proc.opsUrl}/metrics`)).text();
    expect(metrics).toMatch(/^lode_process_unhandled_rejections_total(\{[^}]*\})? 1$/m);
    expect(proc.running()).toBe(true);

    expect(() => assertNoUnhandledRejections([proc])).toThrow(/1 unhandled rejection\(s\) reported:\nrejecting-process .*value out of range/);
    // A clean shutdown: nothing was left broken.
    expect(await proc.stop()).toBe(0);
  });
});
