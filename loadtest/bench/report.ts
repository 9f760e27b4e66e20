import { BASELINE_NAMES, type Baselines } from './baselines.ts';
import type { Mode } from './deployment.ts';
import { describeLegs, ratioToBaseline } from './legs.ts';
import type { Profile } from './profile.ts';
import type { ScenarioResult } from './scenarios/index.ts';
import type { Figures } from './stats.ts';

export interface ModeRun {
  mode: Mode;
  /** One line on what ran: the deployment, its storage, the profile. */
  description: string;
  profile: Profile;
  baselines: Baselines;
  scenarios: ScenarioResult[];
}

/** The --json file's shape, one object per mode. */
export interface JsonReport {
  mode: Mode;
  baselines: Record<string, Figures>;
  scenarios: { name: string; opsPerSec: number; p50Ms: number; p99Ms: number; ratioToBaseline: number }[];
}

export function toJson(run: ModeRun): JsonReport {
  const round = (n: number) => Number(n.toFixed(3));
  const figures = (f: Figures) => ({ p50Ms: round(f.p50Ms), p99Ms: round(f.p99Ms), opsPerSec: round(f.opsPerSec) });
  return {
    mode: run.mode,
    baselines: Object.fromEntries(BASELINE_NAMES.map((name) => [name, figures(run.baselines[name])])),
    scenarios: run.scenarios.map((s) => ({ name: s.name, ...figures(s), ratioToBaseline: round(ratioToBaseline(s.p50Ms, s.legs, run.baselines)) })),
  };
}

export function formatReport(run: ModeRun): string {
  const { small } = run.profile;
  const lines = [
    '',
    `== Lode bench: ${run.description}`,
    `   p50/p99: small calls one at a time, up to ${small.samples} after ${small.warmup} warm-up calls${small.budgetMs ? ` or ${small.budgetMs / 1000} s` : ''} (latency without queueing); large ones per round, setup excluded;`,
    `   ops/s: small calls with ${small.loop.inFlight} in flight for ${small.loop.durationMs / 1000} s (closed loop, one keep-alive node:http client for everything), large ones one at a time.`,
    '   ratio = scenario p50 / Σ (count × baseline p50) over the baselines one operation must pass through ("passes"; see loadtest/bench/legs.ts).',
    '',
    table(
      ['baseline', 'ops/s', 'p50 ms', 'p99 ms'],
      BASELINE_NAMES.map((name) => [name, ops(run.baselines[name].opsPerSec), ms(run.baselines[name].p50Ms), ms(run.baselines[name].p99Ms)]),
    ),
    '',
    table(
      ['scenario', 'ops/s', 'p50 ms', 'p99 ms', 'ratio', 'passes', 'target', 'notes'],
      run.scenarios.map((s) => [
        s.name,
        ops(s.opsPerSec),
        ms(s.p50Ms),
        ms(s.p99Ms),
        ratioToBaseline(s.p50Ms, s.legs, run.baselines).toFixed(1),
        describeLegs(s.legs),
        (s.targets ?? []).map((t) => `${t.label} ${t.met(s, run.baselines) ? 'PASS' : 'MISS'}`).join('; '),
        s.note ?? '',
      ]),
    ),
    ...run.scenarios.flatMap((s) => (s.details ? ['', ...s.details] : [])),
  ];
  return lines.join('\n');
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const numeric = (i: number) => i > 0 && i < 5;
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric(i) ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

function ms(value: number): string {
  return value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0);
}

function ops(value: number): string {
  return value < 10 ? value.toFixed(2) : Math.round(value).toLocaleString('en-US');
}
