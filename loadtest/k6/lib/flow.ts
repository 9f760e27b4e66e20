import { LodeApi } from './api.ts';
import type { ProjectFixture, RunData } from './run-data.ts';

/** What a flow is held to, unless overridden by `P95_<FLOW>_MS` and `FLOW_P95_<FLOW>_MS`. */
export interface FlowBudget {
  /** Iterations per second at nominal load (the `load` profile's plateau); `RATE_<FLOW>` or `RATE` override it. */
  rate: number;
  /** p95 of each HTTP request of the flow, in milliseconds. */
  requestP95Ms: number;
  /** p95 of a whole iteration, in milliseconds. */
  flowP95Ms: number;
}

export interface Flow {
  name: string;
  /** Steps (request tags) whose latency the end-of-test summary shows one by one. */
  steps: readonly string[];
  budget: FlowBudget;
  /** Runs in setup with the first user's key, traffic tagged flow=setup; returns JSON for the VUs. */
  seed(api: LodeApi): unknown;
  /** One iteration, as the calling VU's user (VUs are spread over the users round-robin). */
  iterate(run: RunData): void;
}

export interface FlowSpec<S> {
  name: string;
  steps: readonly string[];
  budget: FlowBudget;
  seed(api: LodeApi): S;
  iterate(api: LodeApi, seed: S): void;
}

/** The key the current VU uses: VUs are dealt to users in turn, so users contend with each other. */
function keyIndex(count: number): number {
  return Math.max(__VU - 1, 0) % count;
}

export function apiFor(flow: string, run: RunData, project: ProjectFixture, index = keyIndex(project.keys.length)): LodeApi {
  const key = project.keys[index];
  return new LodeApi(flow, { baseUrl: run.baseUrl, projectId: project.projectId, key: key.key, deviceId: run.deviceId });
}

export function defineFlow<S>(spec: FlowSpec<S>): Flow {
  return {
    name: spec.name,
    steps: spec.steps,
    budget: spec.budget,
    seed: (api) => spec.seed(api),
    iterate: (run) => {
      const project = run.projects[spec.name];
      if (project === undefined) throw new Error(`setup made no project for flow ${spec.name}`);
      // The seed went through setup's JSON hand-over, but it is the value this flow's seed returned.
      spec.iterate(apiFor(spec.name, run, project), project.seed as S);
    },
  };
}
