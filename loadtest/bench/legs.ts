import type { BaselineName, Baselines } from './baselines.ts';
import type { Mode } from './deployment.ts';

/** How many times one operation of a scenario passes through each physical baseline. */
export type Legs = Partial<Record<BaselineName, number>>;

/**
 * The hops one operation must make in Lode's architecture, whatever the implementation does today:
 * HTTP requests; write-limit checks (Redis, multi-process only: embedded keeps the bucket in memory);
 * bus hops (NATS, multi-process only: the in-process bus is a function call); and Postgres round
 * trips, where one set-based statement or one short transaction counts as one.
 */
export interface Hops {
  http: number;
  writeLimit?: number;
  bus?: number;
  pg?: number;
}

export function legsFor(mode: Mode, hops: Hops): Legs {
  const legs: Legs = { http: hops.http };
  if (mode !== 'embedded') {
    if (hops.writeLimit) legs.redis = hops.writeLimit;
    if (hops.bus) legs.nats = hops.bus;
  }
  if (hops.pg) legs.pg = hops.pg;
  return legs;
}

/** The hops of `times` operations one after another. */
export function times(count: number, hops: Hops): Hops {
  return { http: hops.http * count, writeLimit: (hops.writeLimit ?? 0) * count, bus: (hops.bus ?? 0) * count, pg: (hops.pg ?? 0) * count };
}

export function plus(...all: Hops[]): Hops {
  return all.reduce((sum, h) => ({
    http: sum.http + h.http,
    writeLimit: (sum.writeLimit ?? 0) + (h.writeLimit ?? 0),
    bus: (sum.bus ?? 0) + (h.bus ?? 0),
    pg: (sum.pg ?? 0) + (h.pg ?? 0),
  }));
}

/**
 * ratioToBaseline = scenario p50 / Σ (count × baseline p50) over the scenario's legs: how many times
 * slower one operation is than the bare hops it cannot avoid, each measured alone on this machine.
 */
export function ratioToBaseline(p50Ms: number, legs: Legs, baselines: Baselines): number {
  const floor = Object.entries(legs).reduce((sum, [name, count]) => sum + count * baselines[name as BaselineName].p50Ms, 0);
  return p50Ms / floor;
}

export function describeLegs(legs: Legs): string {
  return Object.entries(legs)
    .filter(([, count]) => count > 0)
    .map(([name, count]) => (count === 1 ? name : `${count}×${name}`))
    .join(' + ');
}
