import { describe, expect, it } from 'vitest';
import { recordedIdRetentionMs } from './retention-plan.ts';

const HOUR = 3_600_000;

describe('recordedIdRetentionMs', () => {
  it('outlasts the outbox retention by its purge lag, whatever the feed keeps', () => {
    expect(recordedIdRetentionMs({ feedRetentionMs: HOUR, outboxRetentionMs: 24 * HOUR })).toBe(26 * HOUR);
    expect(recordedIdRetentionMs({ feedRetentionMs: 24 * HOUR, outboxRetentionMs: 24 * HOUR })).toBe(26 * HOUR);
  });

  it('keeps ids as long as the feed keeps their events', () => {
    expect(recordedIdRetentionMs({ feedRetentionMs: 72 * HOUR, outboxRetentionMs: 24 * HOUR })).toBe(72 * HOUR);
  });
});
