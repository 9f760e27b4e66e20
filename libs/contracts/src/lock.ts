import { z } from 'zod';
import { defineContract } from './contract.ts';
import { defineEvent } from './event.ts';
import { actorSchema, isoTimestamp, uuid } from './common.ts';
import { DEFAULT_PAGE_SIZE, MAX_COMMIT_ENTRIES, MAX_PAGE_SIZE } from './commit.ts';
import { hasControlCharacter, MAX_PATH_LENGTH } from './paths.ts';
import { uuidList } from './uuid-list.ts';

// ---- Commit fence: the commit service's side of lock enforcement (docs/architecture.md) ----------

/**
 * Before its transaction, the commit service fences the files it is about to commit: the lock
 * service refuses (`file_locked`, with `lockedFiles`) if another user holds a lock on any of them,
 * and otherwise records a fence that makes other users' lock requests on those files conflict until
 * the fence is settled or expires (`ttlMs`), so no lock can slip in between the check and the commit.
 */
export const fence = defineContract(
  'lock',
  'fence',
  z.object({
    projectId: uuid,
    userId: uuid,
    /** The committer's name, shown in the conflicts of lock requests that meet the fence. */
    userName: z.string().optional(),
    fenceId: uuid,
    fileIds: uuidList(MAX_COMMIT_ENTRIES, { count: 1, message: 'must list at least one file id' }),
    ttlMs: z.number().int().min(1000),
  }),
  z.object({ fenced: z.literal(true) }),
);

/**
 * After the transaction: `committed: true` releases the committer's own locks on the fenced files
 * and the fence; `committed: false` (the commit failed) drops the fence and keeps every lock.
 */
export const settleFence = defineContract(
  'lock',
  'settle_fence',
  z.object({ projectId: uuid, fenceId: uuid, committed: z.boolean() }),
  z.object({ releasedLocks: z.number().int().min(0) }),
);

// ---- Locks: the Lock, its lifecycle and the routes that take and release it ----------------------

/** Files per POST or DELETE /locks, as for initiate-batch (docs/api.md); more answers 413. */
export const MAX_LOCK_FILES = 1000;
export const MAX_NOTE_LENGTH = 280;

/**
 * Counted in Unicode code points, as a person counts characters (an emoji is one, not two UTF-16
 * units). Control characters other than newline and tab are refused: Postgres cannot store NUL.
 */
export const lockNote = z
  .string()
  .refine((note) => [...note].length <= MAX_NOTE_LENGTH, `must be at most ${MAX_NOTE_LENGTH} characters`)
  // eslint-disable-next-line no-control-regex
  .refine((note) => !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(note), 'must not contain control characters other than newline and tab');

const LOCKS_PATH = '/api/v1/projects/:projectId/locks';
/** Counted before each id is validated, so an oversized request fails with 413 as initiate-batch does. */
const fileIdBatch = { field: 'fileIds', max: MAX_LOCK_FILES, what: 'file ids' };

const fileIdList = z.array(uuid).min(1, `must list 1 to ${MAX_LOCK_FILES} file ids`).max(MAX_LOCK_FILES);

/** The Lock as the API answers it. */
export const lockSchema = z.object({
  fileId: uuid,
  path: z.string(),
  userId: uuid,
  userName: z.string(),
  userAvatarUrl: z.string().nullable(),
  isMine: z.boolean(),
  note: z.string(),
  lockedAt: isoTimestamp,
});
export type Lock = z.infer<typeof lockSchema>;

/**
 * Why POST /locks could not take a file: another user's lock (the entry is that lock), or another
 * user's commit of the file in progress (its fence), which ends within seconds.
 */
export const lockConflictSchema = z.discriminatedUnion('reason', [
  lockSchema.extend({ reason: z.literal('locked') }),
  z.object({ reason: z.literal('committing'), fileId: uuid, path: z.string(), userId: uuid, userName: z.string().nullable() }),
]);
export type LockConflict = z.infer<typeof lockConflictSchema>;

export const acquireBodySchema = z.object({ fileIds: fileIdList, note: lockNote.optional() });

export const acquire = defineContract(
  'lock',
  'acquire',
  z.object({ actor: actorSchema, ...acquireBodySchema.shape }),
  z.object({ acquired: z.array(lockSchema), conflicts: z.array(lockConflictSchema), notFound: z.array(uuid) }),
  { method: 'post', path: LOCKS_PATH, tag: 'Locks', summary: 'Take locks', auth: 'key', write: true, body: acquireBodySchema, batch: fileIdBatch },
);

export const listQuerySchema = z.object({
  pathPrefix: z
    .string()
    .min(1)
    .max(MAX_PATH_LENGTH)
    .refine((prefix) => !hasControlCharacter(prefix), 'must not contain control characters')
    .optional(),
  userId: uuid.optional(),
  cursor: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`).default(DEFAULT_PAGE_SIZE),
});

/**
 * Besides the public query, callers over the bus may ask for one file's lock, by its id or by its
 * exact path (in any case): the Git LFS locking API lists by lock id and path.
 */
export const list = defineContract(
  'lock',
  'list',
  z.object({ actor: actorSchema, ...listQuerySchema.shape, fileId: uuid.optional(), path: z.string().min(1).max(MAX_PATH_LENGTH).optional() }),
  z.object({ data: z.array(lockSchema), nextCursor: z.string().nullable() }),
  { method: 'get', path: LOCKS_PATH, tag: 'Locks', summary: 'List active locks', auth: 'key', query: listQuerySchema },
);

/**
 * Locks the file at a path, made for the path if it has none yet (the Git LFS locking API names files
 * by path). Answers as acquire does for that one file.
 */
export const acquirePath = defineContract('lock', 'acquire_path', z.object({ actor: actorSchema, path: z.string(), note: lockNote.optional() }), acquire.reply);

export const releaseBodySchema = z.object({ fileIds: fileIdList, force: z.boolean().default(false) });

/** Why DELETE /locks left a file locked, or found nothing to release. */
export const notReleasedSchema = z.discriminatedUnion('reason', [
  z.object({ reason: z.literal('not_locked'), fileId: uuid, path: z.string() }),
  lockSchema.extend({ reason: z.literal('held_by_other') }),
]);

export const release = defineContract(
  'lock',
  'release',
  z.object({ actor: actorSchema, ...releaseBodySchema.shape }),
  z.object({ released: z.array(lockSchema), notReleased: z.array(notReleasedSchema), notFound: z.array(uuid) }),
  {
    method: 'delete',
    path: LOCKS_PATH,
    tag: 'Locks',
    summary: 'Release locks (force: org owners and admins)',
    auth: 'key',
    write: true,
    body: releaseBodySchema,
    batch: fileIdBatch,
  },
);

// ---- Events: locks taken and released, for the public catalogue (docs/api.md, Events) ----------

/**
 * A lock as events carry it, and as a commit's 409 file_locked lists it (`lockedFiles`): who holds
 * (held) the file, with the holder's note.
 */
export const lockedFileSchema = z.object({
  fileId: uuid,
  path: z.string(),
  userId: uuid,
  userName: z.string(),
  note: z.string(),
  lockedAt: isoTimestamp,
});
export type LockedFile = z.infer<typeof lockedFileSchema>;

/** released: by its holder; forced: by an owner or admin (force: true); committed: by the holder's commit. */
export const lockReleaseReasonSchema = z.enum(['released', 'forced', 'committed']);
export type LockReleaseReason = z.infer<typeof lockReleaseReasonSchema>;

/**
 * Locks were taken (or a holder's own refreshed) or released, in one request, published through the
 * lock service's outbox in the same transaction as the change.
 */
export const locksChanged = defineEvent(
  'lock.changed',
  z.object({
    projectId: uuid,
    action: z.enum(['acquired', 'released']),
    /** Set when action is released. */
    reason: lockReleaseReasonSchema.optional(),
    by: z.object({ userId: uuid, userName: z.string().nullable() }),
    at: isoTimestamp,
    locks: z.array(lockedFileSchema),
  }),
);
export type LocksChanged = z.infer<typeof locksChanged.schema>;

/** Which of these files someone holds a lock on: retention leaves their versions for a later run. */
export const lockedFiles = defineContract(
  'lock',
  'locked_files',
  z.object({ projectId: uuid, fileIds: z.array(uuid).max(MAX_LOCK_FILES) }),
  z.object({ fileIds: z.array(uuid) }),
);
