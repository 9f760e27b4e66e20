import type { Options, Scenario, Threshold } from 'k6/options';
import { durationEnv, intEnv } from './env.ts';
import type { Flow } from './flow.ts';
import { UPLOAD_PARALLEL } from './push.ts';
import { profileFromEnv, scenarioFor, type ProfileName } from './profiles.ts';

// k6 options for a script running `flows`: one scenario per flow (exec = the flow's name, so each
// entry script exports a function of that name), shaped by PROFILE, and thresholds per flow.

function envName(flow: Flow): string {
  return flow.name.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

function rateOf(flow: Flow): number {
  return intEnv(`RATE_${envName(flow)}`, intEnv('RATE', flow.budget.rate, 1), 1);
}

/** Smoke tolerates nothing; load and soak 1 %; stress and spike, which overload on purpose, 5 %. */
function errorBudget(profile: ProfileName): string {
  switch (profile) {
    case 'smoke':
      return 'rate==0';
    case 'load':
    case 'soak':
      return 'rate<0.01';
    case 'stress':
    case 'spike':
      return 'rate<0.05';
  }
}

function flowThresholds(flow: Flow, profile: ProfileName): Record<string, Threshold[]> {
  const name = envName(flow);
  const tag = `flow:${flow.name}`;
  const thresholds: Record<string, Threshold[]> = {
    [`lode_errors{${tag}}`]: [errorBudget(profile)],
    [`http_req_duration{${tag}}`]: [`p(95)<${intEnv(`P95_${name}_MS`, flow.budget.requestP95Ms, 1)}`],
    [`lode_flow_duration{${tag}}`]: [`p(95)<${intEnv(`FLOW_P95_${name}_MS`, flow.budget.flowP95Ms, 1)}`],
    // Always true: listed so the end-of-test summary shows how many conflicts the flow provoked.
    [`lode_expected_conflicts{${tag}}`]: ['count>=0'],
  };
  // Always true as well: k6's summary prints a tagged sub-metric only when a threshold names it,
  // and the per-step latencies are what tell where a flow's time goes.
  for (const step of flow.steps) thresholds[`http_req_duration{${tag},step:${step}}`] = ['max>=0'];
  return thresholds;
}

export function buildOptions(flows: readonly Flow[]): Options {
  const profile = profileFromEnv();
  const scenarios: Record<string, Scenario> = {};
  let thresholds: Record<string, Threshold[]> = {
    lode_errors: [errorBudget(profile)],
    checks: [profile === 'smoke' ? 'rate==1' : 'rate>0.99'],
  };
  for (const flow of flows) {
    scenarios[flow.name] = { ...scenarioFor(profile, rateOf(flow)), exec: flow.name, tags: { profile } };
    thresholds = { ...thresholds, ...flowThresholds(flow, profile) };
  }
  return {
    scenarios,
    thresholds,
    setupTimeout: durationEnv('SETUP_TIMEOUT', '15m'),
    teardownTimeout: durationEnv('TEARDOWN_TIMEOUT', '5m'),
    summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(95)', 'p(99)', 'max', 'count'],
    // http.batch sends at most `batch` requests at once, 6 per host by default: a push's PUTs and
    // confirms go UPLOAD_PARALLEL at a time, as a desktop client's upload pool would.
    batch: UPLOAD_PARALLEL,
    batchPerHost: UPLOAD_PARALLEL,
  };
}
