/**
 * How long a relay run that published something keeps the next kicked run waiting. An event
 * written while a run is in progress or just after one waits this long at most beyond its own
 * run, which neither the live feed nor a webhook delivery notices; yet it spans several small
 * writes made one after another, so a client locking file after file has their events published,
 * marked and handed to consumers a run at a time instead of each in a run of its own. Those runs
 * are work right after each reply that would otherwise compete for a core with the client's next
 * call.
 */
export const COALESCE_MS = 5;

/** What the relay knows when it is kicked: whether a run is in progress, and when the last busy one ended. */
export interface KickState {
  running: boolean;
  /** When the last run that published at least one event ended (ms); undefined before any did. */
  busyRunEndedAt: number | undefined;
  now: number;
}

/**
 * When a kicked run starts: once the run in progress ends (it may be about to mark the rows it
 * read, so what it did not read needs a run of its own), else after what is left of COALESCE_MS
 * since the last busy run ended (0: at once). A relay that has been idle runs at once, so an
 * isolated event goes out without delay.
 */
export function kickDelay(state: KickState): 'after-run' | number {
  if (state.running) return 'after-run';
  if (state.busyRunEndedAt === undefined) return 0;
  return Math.max(0, state.busyRunEndedAt + COALESCE_MS - state.now);
}
