import type { Target } from './scenario.ts';

/** The performance guide's figures. */
export const SMALL_CALL_P50: Target = { label: 'p50 ≤ 1.5 ms', met: (f) => f.p50Ms <= 1.5 };

export function p50AtMost(ms: number): Target {
  return { label: `p50 ≤ ${ms.toLocaleString('en-US')} ms`, met: (f) => f.p50Ms <= ms };
}

/** Files per second at p50 for an operation over `files` files. */
export function filesPerSecondAtLeast(files: number, minimum: number): Target {
  return { label: `≥ ${minimum.toLocaleString('en-US')} files/s`, met: (f) => files / (f.p50Ms / 1000) >= minimum };
}

/** A target applies only where the scenario runs at the size the guide names. */
export function at(size: number, guideSize: number, target: Target): Target[] {
  return size === guideSize ? [target] : [];
}
