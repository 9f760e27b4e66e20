import { restore } from '@lode/contracts';

/**
 * The deadlines the fault suite holds the system to, in one place.
 *
 * The stack runs with a 10 s bus timeout (LODE_BUS_TIMEOUT_MS): a call to a service that does not
 * answer is given up on after that, and the gateway answers. A request is allowed its route's
 * documented wait plus DEADLINE_MARGIN_MS for the gateway's own work on a loaded 2-core host; one
 * still unanswered then has hung, whatever it would have answered later.
 */
export const BUS_TIMEOUT_MS = 10_000;
export const DEADLINE_MARGIN_MS = 5_000;

/** Every route but the two below: one bus call (or a chain the service bounds by the bus timeout). */
export const REQUEST_DEADLINE_MS = BUS_TIMEOUT_MS + DEADLINE_MARGIN_MS;
/** Confirm reads the object once: docs/api.md gives it 30 s plus a second per 50 MB (our files are small). */
export const CONFIRM_DEADLINE_MS = 30_000 + 1000 + DEADLINE_MARGIN_MS;
/** A restore chains up to three bus calls; the gateway waits for it this long (docs/api.md, Restore). */
export const RESTORE_DEADLINE_MS = restore.RESTORE_TIMEOUT_MS + DEADLINE_MARGIN_MS;

/** The bound: every process recovers by itself within 10 s of the fault ending. */
export const RECOVERY_LIMIT_MS = 10_000;

/** The deadline of one request, by its route. */
export function deadlineOf(method: string, path: string): number {
  if (method === 'POST' && path.endsWith('/restore')) return RESTORE_DEADLINE_MS;
  if (method === 'POST' && path.endsWith('/files/upload/confirm')) return CONFIRM_DEADLINE_MS;
  return REQUEST_DEADLINE_MS;
}
