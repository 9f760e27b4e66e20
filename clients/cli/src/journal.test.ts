import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { UploadedFile } from '@lode/sdk';
import { JournalStore, type PendingCommit } from './journal.ts';
import { readJsonFile } from './json-file.ts';
import { Workspace } from './workspace.ts';

const uploaded = (name: string): UploadedFile => ({ path: name, fileId: `id-${name}`, version: 1, sha256: 'a'.repeat(64), size: 1, dedup: false });
const pending = (name: string): PendingCommit => ({
  request: { message: name, fileVersions: [{ fileId: `id-${name}`, action: 'add', version: 1 }] },
  uploads: [uploaded(name)],
  deletes: [],
});

async function openStore() {
  const workspace = await Workspace.create(await mkdtemp(path.join(tmpdir(), 'lode-journal-')), 'main');
  return { workspace, store: await JournalStore.open(workspace) };
}

describe('the push journal', () => {
  it('gives the next commit of the same process a new idempotency key once a commit is finished', async () => {
    const { workspace, store } = await openStore();
    await store.recordConfirmed([uploaded('a.bin')]);
    await store.recordCommit(pending('a.bin'));
    const finishedKey = store.journal.idempotencyKey;
    await store.finish();

    expect(store.journal).toEqual({ idempotencyKey: expect.any(String), confirmed: {}, commit: null });
    expect(store.journal.idempotencyKey).not.toBe(finishedKey);
    await store.recordCommit(pending('b.bin'));
    expect(await readJsonFile(workspace.journalFile(), null)).toMatchObject({ idempotencyKey: store.journal.idempotencyKey, confirmed: {} });
  });

  it("keeps a commit's draft on disk with the commit and its key, for a resumed push to go on with", async () => {
    const { workspace, store } = await openStore();
    await store.recordCommit(pending('a.bin'));
    await store.recordDraft('draft-1');
    const reopened = await JournalStore.open(workspace);
    expect(reopened.journal).toEqual({ ...store.journal, commit: { ...pending('a.bin'), draftId: 'draft-1' } });
  });

  it('keeps every batch confirmed at once', async () => {
    const { workspace, store } = await openStore();
    const names = Array.from({ length: 20 }, (_, i) => `f${i}.bin`);
    await Promise.all(names.map((name) => store.recordConfirmed([uploaded(name)])));
    const reopened = await JournalStore.open(workspace);
    expect(Object.keys(reopened.journal.confirmed).sort()).toEqual([...names].sort());
  });
});
