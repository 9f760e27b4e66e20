import { describe, expect, it } from 'vitest';
import { COALESCE_MS, kickDelay } from './relay-plan.ts';

describe('when a kicked relay run starts', () => {
  it('starts at once when no run has published anything yet', () => {
    expect(kickDelay({ running: false, busyRunEndedAt: undefined, now: 1000 })).toBe(0);
  });

  it('waits for the run in progress to end', () => {
    expect(kickDelay({ running: true, busyRunEndedAt: undefined, now: 1000 })).toBe('after-run');
    expect(kickDelay({ running: true, busyRunEndedAt: 999, now: 1000 })).toBe('after-run');
  });

  it('waits out what is left of the coalescing time after a run that published, and no longer', () => {
    expect(kickDelay({ running: false, busyRunEndedAt: 1000, now: 1000 })).toBe(COALESCE_MS);
    expect(kickDelay({ running: false, busyRunEndedAt: 1000, now: 1000 + COALESCE_MS / 2 })).toBe(COALESCE_MS / 2);
    expect(kickDelay({ running: false, busyRunEndedAt: 1000, now: 1000 + COALESCE_MS })).toBe(0);
    expect(kickDelay({ running: false, busyRunEndedAt: 1000, now: 5000 })).toBe(0);
  });
});
