import { createHash } from 'node:crypto';
import type { commit } from '@lode/contracts';
import { MAIN_BRANCH } from '@lode/contracts/commit';

/**
 * Fingerprint of a commit request for idempotency: a retry must carry the same message, branch and
 * entries. Built from the parsed body, so key order and whitespace in the JSON do not matter.
 */
export function commitRequestHash(body: commit.CommitBody): string {
  const canonical = JSON.stringify([
    body.message,
    body.branch ?? MAIN_BRANCH,
    body.fileVersions.map((e) => [e.fileId, e.action, e.action === 'delete' ? null : e.version]),
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}
