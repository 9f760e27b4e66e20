import { restore } from '@lode/contracts';

/**
 * The deadlines the fault suite holds the system to, in one place.
 *
 * The stack runs with the deployed bus timeout (LODE_BUS_TIMEOUT_MS, 30 s): a call to a service
 * that does not answer is given up on after that, and the gateway answers. (A much shorter one would
 * fail a 25,000-file commit on a loaded host.) A request is allowed its route's documented wait plus
 * DEADLINE_MARGIN_MS for the gateway's own work; one still unanswered then has hung, whatever it
 * would have answered later.
 */
export const BUS_TIMEOUT_MS = 30_000;
export const DEADLINE_MARGIN_MS = 5_000;

/** Every route but the two below: one bus call (or a chain the service bounds by the bus timeout). */
export const REQUEST_DEADLINE_MS = BUS_TIMEOUT_MS + DEADLINE_MARGIN_MS;
/** Confirm reads the object once: docs/api.md gives it 30 s plus a second per 10 MB (our files are small). */
export const CONFIRM_DEADLINE_MS = 30_000 + 1000 + DEADLINE_MARGIN_MS;
/** A restore chains up to three bus calls; the gateway waits for it this long (docs/api.md, Restore). */
export const RESTORE_DEADLINE_MS = restore.RESTORE_TIMEOUT_MS + DEADLINE_MARGIN_MS;

/**
 * The recovery bound: every process recovers by itself within 10 s of the fault ending. For a
 * killed process the fault ends once its replacement is up (its own /readyz): how long a Node
 * process takes to start is the host's, not the system's recovery, and is reported apart.
 */
export const RECOVERY_LIMIT_MS = 10_000;
/**
 * The 10 s bound is held on a host with CPU to spare. Past this many runnable processes per core
 * (1-minute load average) recovery is CPU-starved, not waiting on a timer of ours: it is then only
 * required within RECOVERY_WAIT_MS, and the suite prints that it did not hold it to 10 s.
 */
export const OVERLOADED_PER_CORE = 4;
/** How long recovery is waited for at all (a hang guard). */
export const RECOVERY_WAIT_MS = 60_000;
/** How long a replacement process may take to start (a hang guard: a loaded host starts Node slowly). */
export const STARTUP_WAIT_MS = 120_000;

/**
 * How long a client waits for a restore's answer before it tries again with the same key: the
 * gateway waits 120 s for a restore whose process died, a client need not.
 */
export const RESTORE_PATIENCE_MS = 20_000;

/** The deadline of one request, by its route. */
export function deadlineOf(method: string, path: string): number {
  if (method === 'POST' && path.endsWith('/restore')) return RESTORE_DEADLINE_MS;
  if (method === 'POST' && path.endsWith('/files/upload/confirm')) return CONFIRM_DEADLINE_MS;
  return REQUEST_DEADLINE_MS;
}
