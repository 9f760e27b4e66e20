import { z } from 'zod';
import { defineContract } from './contract.ts';
import { actorSchema, byteSize } from './common.ts';
import { confirmTimeoutMs } from './upload.ts';

/**
 * The Git LFS protocol's side of the project's content store: the objects git-lfs transfers are the
 * same content that Lode's uploads deduplicate against, keyed by SHA-256 and size, never across
 * projects. The gateway speaks the protocol (its media type, error shape and authentication); these
 * calls carry only what the upload service decides.
 */

/** A Git LFS object id: the SHA-256 of its bytes, hex, as git-lfs writes it (lowercase). */
export const LFS_OID = /^[0-9a-f]{64}$/;

/** Objects per batch request: git-lfs sends 100 at a time; more answers 413. */
export const MAX_LFS_BATCH = 1000;

export const lfsOperationSchema = z.enum(['download', 'upload']);
export type LfsOperation = z.infer<typeof lfsOperationSchema>;

/** A presigned request the client makes to storage itself: bytes never pass through Lode's services. */
export const transferActionSchema = z.object({
  url: z.string(),
  headers: z.record(z.string(), z.string()),
  expiresInSeconds: z.number().int().positive(),
});
export type TransferAction = z.infer<typeof transferActionSchema>;

/**
 * Why an object cannot be transferred: not in the project's store, the request's entry is not a
 * valid object, or storing it would pass the project's quota.
 */
export const objectRefusalSchema = z.object({ reason: z.enum(['not_found', 'invalid', 'quota_exceeded']), message: z.string() });

/**
 * One object's answer: nothing to do (an upload of content the project already holds), a download
 * or an upload to make (an upload is then verified), or a refusal. `oid` and `size` echo the entry.
 */
export const batchObjectSchema = z.object({
  oid: z.string(),
  size: z.number(),
  download: transferActionSchema.optional(),
  upload: transferActionSchema.optional(),
  refused: objectRefusalSchema.optional(),
});
export type BatchObject = z.infer<typeof batchObjectSchema>;

/**
 * Entries travel unvalidated, as initiate-batch's do: a malformed object is refused on its own and the
 * others are answered.
 */
export const batch = defineContract(
  'upload',
  'lfs_batch',
  z.object({ actor: actorSchema, operation: lfsOperationSchema, objects: z.array(z.unknown()).max(MAX_LFS_BATCH) }),
  z.object({ objects: z.array(batchObjectSchema) }),
);

export const verifyBodySchema = z.object({ oid: z.string().regex(LFS_OID, 'must be 64 lowercase hex characters'), size: byteSize });

/**
 * Checks that an object uploaded through a batch's upload action holds the bytes its oid names, and
 * only then adds it to the project's content store: before that no download or dedup can reach it.
 * Bytes that do not match are deleted (content_mismatch); a repeated verify of a stored object
 * answers as the first did.
 */
export const verify = defineContract('upload', 'lfs_verify', z.object({ actor: actorSchema, object: verifyBodySchema }), verifyBodySchema);

/**
 * Verify reads the object as confirm does, after the S3 driver copied it once inside the store:
 * confirm's allowance for twice its bytes.
 */
export function verifyTimeoutMs(size: number): number {
  return confirmTimeoutMs(2 * size);
}
