import fc from 'fast-check';
import { exchangeOf, type Exchange } from './findings.ts';
import type { FuzzRequest, Sender } from './send.ts';

export interface FuzzSettings {
  seed: number;
  runs: number;
  /** fast-check's path of one run to replay alone (FUZZ_PATH), instead of the whole sequence. */
  path?: string;
  concurrency: number;
  /** Tags every request's X-Request-Id, so the processes' log lines lead back to it. */
  tag: string;
  /** Requests sent first (runs 0, 1, …), as fast-check's examples. */
  examples: FuzzRequest[];
}

/**
 * Sends `runs` requests generated from the seed, `concurrency` at a time, and returns every
 * exchange. fast-check generates run i's request from the seed alone, so the report names a
 * failing request by its path `i`, and FUZZ_PATH=i replays just that request.
 *
 * The property never fails during a full run, so that one run finds every class of failure
 * instead of stopping (and shrinking against a live server) at the first; the test judges the
 * exchanges afterwards. A replay awaits its one request and fails on its problem, so fast-check
 * prints its counterexample and shrinks it.
 */
export async function runFuzz(requests: fc.Arbitrary<FuzzRequest>, sender: Sender, settings: FuzzSettings): Promise<Exchange[]> {
  const exchanges: Exchange[] = [];
  const examples = settings.examples.map((request): [FuzzRequest] => [request]);
  const requestIdOf = (run: number) => `fuzz-${settings.tag}-${run}`;
  const sendOne = async (run: number, request: FuzzRequest) => {
    const exchange = exchangeOf(run, requestIdOf(run), request, await sender.send(request, requestIdOf(run)));
    exchanges.push(exchange);
    return exchange;
  };

  if (settings.path !== undefined) {
    const run = Number(settings.path.split(':')[0]);
    await fc.assert(
      fc.asyncProperty(requests, async (request) => {
        const { problem } = await sendOne(run, request);
        if (problem) throw new Error(`${request.route} (${request.mutation}): ${problem}`);
      }),
      { seed: settings.seed, path: settings.path, numRuns: 1, examples },
    );
    return exchanges;
  }

  const inFlight = new Set<Promise<unknown>>();
  let run = 0;
  await fc.assert(
    fc.asyncProperty(requests, async (request) => {
      while (inFlight.size >= settings.concurrency) await Promise.race(inFlight);
      const sending: Promise<unknown> = sendOne(run++, request).finally(() => inFlight.delete(sending));
      inFlight.add(sending);
    }),
    { seed: settings.seed, numRuns: settings.runs, examples },
  );
  await Promise.all(inFlight);
  return exchanges.sort((a, b) => a.run - b.run);
}
