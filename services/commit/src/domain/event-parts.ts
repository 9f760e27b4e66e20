import { commit } from '@lode/contracts';
import type { OutboxEvent } from '@lode/outbox';

/**
 * Bytes of entries per event part. With the header (a message of up to 10,000 characters) a part
 * stays far below NATS's default 1 MiB max_payload whatever the paths' length; about 2,000 entries of
 * typical paths fit.
 */
export const PART_ENTRY_BYTES = 512 * 1024;

export type CommitCreatedHeader = Omit<commit.CommitCreated, 'part' | 'parts' | 'entries'>;

/** The commit.created event of one commit, split into parts in entry order; ids are `<commitId>.<part>`. */
export function commitCreatedEvents(header: CommitCreatedHeader, entries: readonly commit.CommittedEntry[]): OutboxEvent[] {
  const chunks: commit.CommittedEntry[][] = [[]];
  let bytes = 0;
  for (const entry of entries) {
    const size = Buffer.byteLength(JSON.stringify(entry)) + 1;
    if (bytes + size > PART_ENTRY_BYTES) {
      chunks.push([]);
      bytes = 0;
    }
    chunks[chunks.length - 1].push(entry);
    bytes += size;
  }
  return chunks.map((chunk, i) => commitCreatedPart(header, { part: i + 1, parts: chunks.length }, chunk));
}

/** Part `part` of `parts` of a commit's commit.created event. */
function commitCreatedPart(header: CommitCreatedHeader, at: { part: number; parts: number }, entries: commit.CommittedEntry[]): OutboxEvent {
  const data: commit.CommitCreated = { ...header, ...at, entries };
  return { subject: commit.commitCreated.subject, id: `${header.commitId}.${at.part}`, data };
}
