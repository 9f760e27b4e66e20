import type { BaselineCalls, Baselines } from '../baselines.ts';
import type { HttpClient } from '../client.ts';
import type { Deployment, Mode } from '../deployment.ts';
import type { Fixtures } from '../fixtures.ts';
import type { Hops, Legs } from '../legs.ts';
import type { Profile } from '../profile.ts';
import type { Figures } from '../stats.ts';

/** A figure the performance guide sets, checked where the scenario runs at the guide's size. */
export interface Target {
  label: string;
  met(figures: Figures, baselines: Baselines): boolean;
}

export interface ScenarioResult extends Figures {
  name: string;
  /** The physical baselines one operation passes through (see legs.ts). */
  legs: Legs;
  /** Shown beside the figures, e.g. files/s or how many calls were in flight. */
  note?: string;
  targets?: Target[];
  /** Printed under the table (the memory watch). */
  details?: string[];
}

export interface BenchContext {
  mode: Mode;
  profile: Profile;
  deployment: Deployment;
  fixtures: Fixtures;
  http: HttpClient;
  /** The physical baselines' calls, for a scenario that compares itself with one side by side. */
  baselineCalls: BaselineCalls['call'];
  legs(hops: Hops): Legs;
  log(message: string): void;
}

export interface Scenario {
  /** What --only selects. */
  name: string;
  run(ctx: BenchContext): Promise<ScenarioResult[]>;
}
