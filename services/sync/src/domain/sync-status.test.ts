import { describe, expect, it } from 'vitest';
import type { SyncStatus } from '@lode/contracts/sync';
import { appendRow, decideStatus, emptyColumns, type Comparison, type RemoteFile } from './sync-status.ts';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const C = 'c'.repeat(64);
const live = (over: Partial<RemoteFile> = {}): RemoteFile => ({ fileId: 'f', version: 3, sha256: A, size: 10, commitSeq: 7, deleted: false, ...over });
const deleted = (over: Partial<RemoteFile> = {}): RemoteFile => live({ deleted: true, commitSeq: 9, ...over });
const status = (local: Comparison['local'], remote: RemoteFile | undefined, contentKnown = false) => decideStatus({ local, remote, contentKnown });

describe('decideStatus', () => {
  it('is local_only when the path was never committed on the branch, whatever the base', () => {
    expect(status({ sha256: A }, undefined)).toBe('local_only');
    expect(status({ sha256: A, baseVersion: 2 }, undefined)).toBe('local_only');
  });

  it('is up_to_date when the content equals the tip, even from an old base or after a restore', () => {
    expect(status({ sha256: A }, live(), true)).toBe('up_to_date');
    expect(status({ sha256: A, baseVersion: 1 }, live(), true)).toBe('up_to_date');
  });

  it('is outdated when the content is an older version of the path, with or without a base', () => {
    expect(status({ sha256: B }, live(), true)).toBe('outdated');
    expect(status({ sha256: B, baseVersion: 1 }, live(), true)).toBe('outdated');
    expect(status({ sha256: B, baseVersion: 3 }, live(), true)).toBe('outdated');
  });

  it('is modified when the content is new and the remote did not move past the base', () => {
    expect(status({ sha256: C }, live())).toBe('modified');
    expect(status({ sha256: C, baseVersion: 3 }, live())).toBe('modified');
    expect(status({ sha256: C, baseVersion: 4 }, live())).toBe('modified');
  });

  it('is conflict when the content is new and the remote moved past the base', () => {
    expect(status({ sha256: C, baseVersion: 2 }, live())).toBe('conflict');
    expect(status({ sha256: C, baseVersion: 1 }, live())).toBe('conflict');
  });

  it('is deleted_remote when the remote deleted the path and the content is one it had', () => {
    expect(status({ sha256: A }, deleted(), true)).toBe('deleted_remote');
    expect(status({ sha256: B, baseVersion: 1 }, deleted(), true)).toBe('deleted_remote');
  });

  it('is modified for new content on a deleted path, conflict when the client names a base', () => {
    expect(status({ sha256: C }, deleted())).toBe('modified');
    expect(status({ sha256: C, baseVersion: 3 }, deleted())).toBe('conflict');
  });
});

describe('appendRow', () => {
  const rowOf = (status: SyncStatus, remote: RemoteFile | undefined) => {
    const columns = emptyColumns();
    appendRow(columns, 'outdated', live());
    appendRow(columns, status, remote);
    return Object.fromEntries(Object.entries(columns).map(([name, values]) => [name, values[1]]));
  };

  it('carries the remote fields of a live file', () => {
    expect(rowOf('outdated', live())).toEqual({
      statuses: 'outdated',
      fileIds: 'f',
      remoteVersions: 3,
      remoteSha256s: A,
      remoteCommitSeqs: 7,
      remoteSizes: 10,
    });
  });

  it('leaves out the remote hash of an up_to_date file, which is the listed one', () => {
    expect(rowOf('up_to_date', live())).toMatchObject({ statuses: 'up_to_date', fileIds: 'f', remoteSha256s: null });
  });

  it('names a deleted file and the deleting commit but no content', () => {
    expect(rowOf('deleted_remote', deleted())).toEqual({
      statuses: 'deleted_remote',
      fileIds: 'f',
      remoteVersions: null,
      remoteSha256s: null,
      remoteCommitSeqs: 9,
      remoteSizes: null,
    });
  });

  it('has only nulls without a remote file', () => {
    expect(rowOf('local_only', undefined)).toEqual({
      statuses: 'local_only',
      fileIds: null,
      remoteVersions: null,
      remoteSha256s: null,
      remoteCommitSeqs: null,
      remoteSizes: null,
    });
  });
});
