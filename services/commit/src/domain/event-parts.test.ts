import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { commit } from '@lode/contracts';
import { commitCreatedEvents } from './event-parts.ts';

const header = {
  commitId: randomUUID(),
  projectId: randomUUID(),
  branch: 'main',
  sequenceNum: 7,
  message: 'm',
  author: { userId: randomUUID(), userName: 'Ada' },
  createdAt: new Date().toISOString(),
  fileCount: 0,
};
const entry = (i: number): commit.CommittedEntry => ({
  fileId: randomUUID(),
  path: `dir/some/long/path/to/a/texture_${i}.png`,
  action: 'add',
  version: 1,
  sha256: 'f'.repeat(64),
  size: i,
});

describe('commit.created parts', () => {
  it('splits 25,000 entries into ordered parts, each valid and far below 1 MiB', () => {
    const entries = Array.from({ length: 25_000 }, (_, i) => entry(i));
    const events = commitCreatedEvents({ ...header, fileCount: entries.length }, entries);
    expect(events.length).toBeGreaterThan(5);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => `${header.commitId}.${i + 1}`));
    for (const event of events) {
      expect(Buffer.byteLength(JSON.stringify(event.data))).toBeLessThan(600 * 1024);
      expect(commit.commitCreated.schema.safeParse(event.data).success).toBe(true);
    }
    expect(events.flatMap((e) => (e.data as commit.CommitCreated).entries)).toEqual(entries);
  });

  it('keeps parts under the limit with the longest multi-byte paths and message', () => {
    const long = (i: number) => ({ ...entry(i), path: `${'é'.repeat(1000)}/${i}` });
    const events = commitCreatedEvents(
      { ...header, message: '€'.repeat(10_000) },
      Array.from({ length: 2000 }, (_, i) => long(i)),
    );
    for (const event of events) expect(Buffer.byteLength(JSON.stringify(event.data))).toBeLessThan(1024 * 1024 - 4096);
  });

  it('publishes one part for a small commit', () => {
    const events = commitCreatedEvents({ ...header, fileCount: 1 }, [entry(1)]);
    expect(events.map((e) => (e.data as commit.CommitCreated).parts)).toEqual([1]);
  });
});
