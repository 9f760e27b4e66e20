import type { commit } from '@lode/contracts';

/**
 * Bytes of entries per event part. With the header (a message of up to 10,000 characters) a part
 * stays far below NATS's default 1 MiB max_payload whatever the paths' length; about 2,000 entries of
 * typical paths fit. A part begins wherever the running size of the entries' JSON crosses a multiple
 * of it, so a part holds at most one entry more than this many bytes.
 */
export const PART_ENTRY_BYTES = 512 * 1024;

export type CommitCreatedHeader = Omit<commit.CommitCreated, 'part' | 'parts' | 'entries'>;
