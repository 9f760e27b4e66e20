import { createHash } from 'node:crypto';
import type { commit } from '@lode/contracts';
import { MAIN_BRANCH } from '@lode/contracts/commit';

/**
 * Fingerprint of a commit request for idempotency: a retry must carry the same message, branch and
 * entries. Built from the parsed body, so key order and whitespace in the JSON do not matter; a
 * delete's version counts as null whether the client sent one or not.
 */
export function commitRequestHash(columns: commit.CommitColumns): string {
  const canonical = JSON.stringify([
    columns.message,
    columns.branch ?? MAIN_BRANCH,
    columns.fileIds.map((fileId, i) => [fileId, columns.actions[i], columns.versions[i]]),
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}
