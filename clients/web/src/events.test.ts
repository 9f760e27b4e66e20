import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, LIVE_TYPES } from './events.ts';

// The form's list against the server's catalogue is the browser test's (test/dashboard.test.ts).
describe('the public event types the dashboard refreshes on', () => {
  it("is what the project's pages show: every type but the org's plugins, obliterations, retention runs and quota warnings included", () => {
    expect(LIVE_TYPES).toEqual(EVENT_TYPES.filter((type) => type !== 'plugin.published'));
    expect(LIVE_TYPES).toEqual(expect.arrayContaining(['file.obliterated', 'retention.applied', 'quota.warning']));
  });
});
