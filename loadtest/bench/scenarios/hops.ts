import { plus, times, type Hops } from '../legs.ts';

/**
 * The hops each API call must make, as Lode's services divide the data: the upload service owns
 * files and versions, the commit service commits and history, the lock service locks, the sync
 * service its read model. Storage calls (a HEAD on confirm and restore) have no baseline here.
 */

/** The key lookup is cached in the gateway's memory and validate-key is not a write. */
export const VALIDATE_KEY: Hops = { http: 1 };
/** The lock service asks the upload service whether the file is the project's, then inserts the lock. */
export const LOCK: Hops = { http: 1, writeLimit: 1, bus: 2, pg: 2 };
export const UNLOCK: Hops = { http: 1, writeLimit: 1, bus: 1, pg: 1 };
/** The file's existence from the upload service, then a page of main-lineage history. */
export const LIST_VERSIONS: Hops = { http: 1, bus: 2, pg: 2 };
/** One set-based statement reserves every entry; presigning is local CPU. */
export const INITIATE_BATCH: Hops = { http: 1, writeLimit: 1, bus: 1, pg: 1 };
/** The commit service resolves every entry on the branch's tree in one statement; presigning is local CPU. A read: no write limit. */
export const DOWNLOAD_URLS: Hops = { http: 1, bus: 1, pg: 1 };
/** A page of a branch's files or of its log: one statement reads the branch's row and the page. */
export const TREE_PAGE: Hops = { http: 1, bus: 1, pg: 1 };
export const LOG_PAGE: Hops = { http: 1, bus: 1, pg: 1 };
/** A presigned PUT: loopback HTTP is its floor (to the gateway on local disk, to S3 otherwise). */
export const PUT_OBJECT: Hops = { http: 1 };
export const CONFIRM: Hops = { http: 1, writeLimit: 1, bus: 1, pg: 1 };
/** One statement finds every reservation, then one transaction locks them and their files and records every version; storage (one batched head) has no baseline. */
export const CONFIRM_BATCH: Hops = { http: 1, writeLimit: 1, bus: 1, pg: 4 };
/** The versions from the upload service and the lock fence from the lock service, then one transaction. */
export const COMMIT: Hops = { http: 1, writeLimit: 1, bus: 3, pg: 3 };
/** Read-your-writes asks the commit service for the latest sequence, then one snapshot compare. */
export const SYNC_BATCH: Hops = { http: 1, bus: 2, pg: 2 };
/** The last batch's remote-only rows, one page from the read model. */
export const REMOTE_ONLY_PAGE: Hops = { http: 0, bus: 1, pg: 1 };
/**
 * The restore service records the request, resolves the targets and reads main's tree (in
 * parallel: counted once), has the upload service make the versions, then commits through the
 * commit service (its own three bus hops and three round trips).
 */
export const RESTORE: Hops = plus(
  { http: 1, writeLimit: 1, bus: 1, pg: 1 },
  { http: 0, bus: 1, pg: 1 },
  { http: 0, bus: 1, pg: 1 },
  { ...COMMIT, http: 0, writeLimit: 0 },
);

/** A push of `files` files with `inFlight` PUT-then-confirm chains at a time, then its commit. */
export function pushHops(files: number, inFlight: number, batchSize: number): Hops {
  return plus(times(Math.ceil(files / batchSize), INITIATE_BATCH), times(Math.ceil(files / inFlight), plus(PUT_OBJECT, CONFIRM)), COMMIT);
}
