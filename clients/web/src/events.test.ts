import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, LIVE_TYPES } from './events.ts';

describe('the public event types the dashboard knows', () => {
  it('offers a webhook every type of the catalogue, in its order, the storage events included', () => {
    expect(EVENT_TYPES).toEqual([
      'commit.created',
      'lock.acquired',
      'lock.released',
      'branch.created',
      'branch.deleted',
      'plugin.published',
      'file.obliterated',
      'retention.applied',
      'quota.warning',
    ]);
  });

  it("refreshes the project's pages on what they show: obliterations, retention runs and quota warnings too, not plugins", () => {
    expect(LIVE_TYPES).toEqual([
      'commit.created',
      'lock.acquired',
      'lock.released',
      'branch.created',
      'branch.deleted',
      'file.obliterated',
      'retention.applied',
      'quota.warning',
    ]);
  });
});
