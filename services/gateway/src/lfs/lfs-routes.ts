import { Router, type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import { z } from 'zod';
import { errors } from '@lode/errors';
import { commit, lfs, lock, uuid } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { Logger } from '@lode/telemetry';
import type { Authenticator } from '../auth/authenticator.ts';
import { actorOf } from '../auth/middleware.ts';
import { publicOrigin } from '../auth/public-url.ts';
import { errorHandler, routeNotFound } from '../http/error-handler.ts';
import { parse, parseBatch } from '../http/parse.ts';
import { requireLfsKey, requireLfsProject } from './lfs-auth.ts';
import { conflictMessage, toLfsLock } from './lfs-locks.ts';
import { answerLfs, sendLfs } from './lfs-media.ts';

export interface LfsRoutesDeps {
  bus: Bus;
  authenticator: Authenticator;
  logger: Logger;
  /** Counts one write against the project's write rate limit. */
  limitWrites: RequestHandler;
  readBody: RequestHandler;
  publicUrl: string | undefined;
}

/** Where a team points `lfs.url`: the project by id, or by its org's and its own slug. */
const PROJECT_PREFIXES = ['/:projectId', '/:orgSlug/:projectSlug'];

const ref = z.object({ name: z.string() }).nullish();
const batchBody = z.object({
  operation: lfs.lfsOperationSchema,
  transfers: z.array(z.string()).optional(),
  objects: z.array(z.unknown()),
  hash_algo: z.string().optional(),
  ref,
});
const lockBody = z.object({ path: z.string().min(1), ref });
const listQuery = z.object({
  path: z.string().min(1).optional(),
  id: z.string().optional(),
  cursor: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(commit.MAX_PAGE_SIZE).default(commit.DEFAULT_PAGE_SIZE),
});
const verifyLocksBody = z.object({
  cursor: z.string().min(1).nullish(),
  limit: z.number().int().min(1).max(commit.MAX_PAGE_SIZE).nullish(),
  ref,
});
const unlockBody = z.object({ force: z.boolean().optional(), ref });

/**
 * The Git LFS server: the batch API with the basic transfer, its verify, and the locking API, so that
 * the stock git-lfs client pushes, pulls and locks through Lode. Written by hand rather than bound
 * from contracts: the protocol has its own media type, error body and authentication. Objects are
 * the project's content store; an LFS lock is a Lode lock on the path's file.
 */
export function lfsRoutes(deps: LfsRoutesDeps): Router {
  const { bus } = deps;
  const router = Router();
  const route = (method: 'get' | 'post', path: string, ...handlers: RequestHandler[]) => {
    for (const prefix of PROJECT_PREFIXES) router[method](`${prefix}${path}`, requireLfsKey(deps.authenticator), requireLfsProject, deps.readBody, ...handlers);
  };
  // Only an upload batch writes: downloads, verifies and listings are reads.
  const countUploads: RequestHandler = (req, res, next) =>
    (req.body as { operation?: unknown })?.operation === 'upload' ? deps.limitWrites(req, res, next) : next();

  route('post', '/objects/batch', countUploads, async (req, res) => {
    const body = parseBatch(batchBody, req.body, { field: 'objects', max: lfs.MAX_LFS_BATCH, what: 'objects' });
    if (body.transfers && body.transfers.length > 0 && !body.transfers.includes('basic')) throw errors.validation('Lode serves the basic transfer only');
    if (body.hash_algo !== undefined && body.hash_algo !== 'sha256') {
      const objects = body.objects.map((object) => ({ ...echoed(object), error: { code: 409, message: 'Lode names objects by SHA-256 only' } }));
      return sendLfs(res, 200, { transfer: 'basic', objects, hash_algo: 'sha256' });
    }
    const { objects } = await bus.call(lfs.batch, { actor: actorOf(res), operation: body.operation, objects: body.objects });
    const verify = verifyAction(req, deps.publicUrl);
    sendLfs(res, 200, { transfer: 'basic', objects: objects.map((object) => toLfsObject(object, verify)), hash_algo: 'sha256' });
  });

  route('post', '/objects/verify', async (req, res) => {
    const body = parse(lfs.verifyBodySchema, req.body);
    const object = await bus.call(lfs.verify, { actor: actorOf(res), object: body }, { timeoutMs: lfs.verifyTimeoutMs(body.size) });
    sendLfs(res, 200, object);
  });

  route('post', '/locks', deps.limitWrites, async (req, res) => {
    const { path } = parse(lockBody, req.body);
    const { acquired, conflicts } = await bus.call(lock.acquirePath, { actor: actorOf(res), path });
    const [taken] = acquired;
    if (taken) return sendLfs(res, 201, { lock: toLfsLock(taken) });
    const [conflict] = conflicts;
    if (!conflict) throw new Error('acquire_path answered neither a lock nor a conflict');
    const held = conflict.reason === 'locked' ? { lock: toLfsLock(conflict) } : {};
    sendLfs(res, 409, { ...held, message: conflictMessage(conflict), code: 'conflict', request_id: res.locals.requestId as string });
  });

  route('get', '/locks', async (req, res) => {
    const query = parse(listQuery, req.query, 'query');
    // A lock id is a file id: one that is no UUID names no lock.
    const fileId = query.id === undefined ? undefined : uuid.safeParse(query.id);
    if (fileId && !fileId.success) return sendLfs(res, 200, { locks: [] });
    const page = await bus.call(lock.list, { actor: actorOf(res), path: query.path, fileId: fileId?.data, cursor: query.cursor, limit: query.limit });
    sendLfs(res, 200, { locks: page.data.map(toLfsLock), ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}) });
  });

  route('post', '/locks/verify', async (req, res) => {
    const body = parse(verifyLocksBody, req.body);
    const page = await bus.call(lock.list, { actor: actorOf(res), cursor: body.cursor ?? undefined, limit: body.limit ?? commit.MAX_PAGE_SIZE });
    sendLfs(res, 200, {
      ours: page.data.filter((held) => held.isMine).map(toLfsLock),
      theirs: page.data.filter((held) => !held.isMine).map(toLfsLock),
      ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
    });
  });

  route('post', '/locks/:lockId/unlock', deps.limitWrites, async (req, res) => {
    const { force = false } = parse(unlockBody, req.body);
    const fileId = uuid.safeParse(req.params.lockId);
    if (!fileId.success) throw errors.notFound('Lock');
    const { released, notReleased } = await bus.call(lock.release, { actor: actorOf(res), fileIds: [fileId.data], force });
    const [done] = released;
    if (done) return sendLfs(res, 200, { lock: toLfsLock(done) });
    const [left] = notReleased;
    if (left?.reason === 'held_by_other') {
      throw errors.forbidden(`${left.path} is locked by ${left.userName}; an org owner or admin can release it with --force`);
    }
    throw errors.notFound('Lock');
  });

  router.use(routeNotFound);
  return router;
}

/**
 * Refusals of any request under /lfs in the protocol's shape, those of the checks every request
 * meets before its route (an undecodable path, a malformed query) included.
 */
export function lfsErrors(logger: Logger): ErrorRequestHandler {
  return errorHandler(logger, answerLfs);
}

type VerifyAction = { href: string; header: Record<string, string>; expires_in?: number };

/**
 * The verify action of an upload: this server's verify route under the URL the client used, with
 * the client's own credentials as its headers, since a presigned upload is `authenticated` and
 * git-lfs then sends the action's headers alone.
 */
function verifyAction(req: Request, publicUrl: string | undefined): VerifyAction {
  const prefix = req.originalUrl.split('?')[0].replace(/\/objects\/batch$/, '');
  const header: Record<string, string> = {};
  const authorization = req.get('authorization');
  const deviceId = req.get('x-device-id');
  if (authorization) header.Authorization = authorization;
  if (deviceId) header['X-Device-Id'] = deviceId;
  return { href: `${publicOrigin(req, publicUrl)}${prefix}/objects/verify`, header };
}

/**
 * The protocol's per-object error codes: 404 for an object the server does not hold, 422 for an
 * invalid one, and 507 (insufficient storage, as git-lfs's batch API names it) past the project's quota.
 */
const LFS_REFUSAL_CODES: Record<NonNullable<lfs.BatchObject['refused']>['reason'], number> = { not_found: 404, invalid: 422, quota_exceeded: 507 };

function toLfsObject(object: lfs.BatchObject, verify: VerifyAction): object {
  const { oid, size } = object;
  if (object.refused) return { oid, size, error: { code: LFS_REFUSAL_CODES[object.refused.reason], message: object.refused.message } };
  if (object.download) return { oid, size, authenticated: true, actions: { download: action(object.download) } };
  if (object.upload) {
    const upload = action(object.upload);
    return { oid, size, authenticated: true, actions: { upload, verify: { ...verify, expires_in: upload.expires_in } } };
  }
  return { oid, size };
}

function action(transfer: lfs.TransferAction) {
  return { href: transfer.url, ...(Object.keys(transfer.headers).length > 0 ? { header: transfer.headers } : {}), expires_in: transfer.expiresInSeconds };
}

/** An object of a refused batch as the client sent it. */
function echoed(object: unknown): { oid: unknown; size: unknown } {
  const { oid, size } = (typeof object === 'object' && object !== null ? object : {}) as { oid?: unknown; size?: unknown };
  return { oid, size };
}
