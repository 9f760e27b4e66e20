import type { Scenario, Stage } from 'k6/options';
import { durationEnv, intEnv, oneOf } from './env.ts';

// The five shapes of load an SRE asks for, as k6 executors. Apart from smoke they are open models
// (arrival-rate executors): iterations start at the planned rate whether or not Lode keeps up, so a
// slow Lode shows as latency and dropped_iterations instead of quietly lowering the load.

export const profileNames = ['smoke', 'load', 'stress', 'soak', 'spike'] as const;
export type ProfileName = (typeof profileNames)[number];

export function profileFromEnv(): ProfileName {
  return oneOf('PROFILE', profileNames, 'smoke');
}

function arrival(stages: Stage[], startRate = 0): Scenario {
  const peak = Math.max(...stages.map((s) => s.target), startRate, 1);
  return {
    executor: 'ramping-arrival-rate',
    startRate,
    timeUnit: '1s',
    stages,
    preAllocatedVUs: intEnv('PRE_ALLOCATED_VUS', Math.max(2, peak), 1),
    maxVUs: intEnv('MAX_VUS', Math.max(20, peak * 10), 1),
  };
}

/** The scenario of one flow whose nominal rate is `rate` iterations per second. */
export function scenarioFor(profile: ProfileName, rate: number): Scenario {
  switch (profile) {
    case 'smoke':
      // One VU back to back: proves the script and the deployment work, measures nothing.
      return { executor: 'constant-vus', vus: 1, duration: durationEnv('DURATION', '30s') };
    case 'load':
      // Nominal traffic: ramp up, hold, ramp down. The thresholds are the SLO.
      return arrival([
        { duration: '2m', target: rate },
        { duration: durationEnv('DURATION', '10m'), target: rate },
        { duration: '1m', target: 0 },
      ]);
    case 'stress':
      // Steps of 1×, 2×, 3× and 4× nominal: where latency bends and errors start is the finding.
      return arrival(
        [1, 2, 3, 4]
          .flatMap((factor) => [
            { duration: '2m', target: rate * factor },
            { duration: durationEnv('DURATION', '3m'), target: rate * factor },
          ])
          .concat([{ duration: '2m', target: 0 }]),
      );
    case 'soak':
      // Nominal traffic for hours: leaks, growing queues (outbox, consumer lag), pool exhaustion.
      return arrival([
        { duration: '5m', target: rate },
        { duration: durationEnv('DURATION', '2h'), target: rate },
        { duration: '5m', target: 0 },
      ]);
    case 'spike':
      // A fifth of nominal, then five times nominal within 10 s, then back: autoscaling and recovery.
      return arrival(
        [
          { duration: '1m', target: Math.max(1, Math.round(rate / 5)) },
          { duration: '10s', target: rate * 5 },
          { duration: durationEnv('DURATION', '1m'), target: rate * 5 },
          { duration: '10s', target: Math.max(1, Math.round(rate / 5)) },
          { duration: '3m', target: Math.max(1, Math.round(rate / 5)) },
          { duration: '10s', target: 0 },
        ],
        Math.max(1, Math.round(rate / 5)),
      );
  }
}
