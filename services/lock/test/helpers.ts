import type { EventStream } from '@lode/bus';
import { commit } from '@lode/contracts';

/** Polls until done() holds, as a client waiting for an asynchronous effect would. */
export async function until(done: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface SyntheticCommit {
  commitId: string;
  projectId: string;
  author: { userId: string; userName: string };
  createdAt: string;
  part: number;
  parts: number;
  fileIds: string[];
  /** Event id; another id than `<commitId>.<part>` delivers the same part again. */
  id?: string;
}

/** Publishes commit.created as the commit service's outbox relay would, for a commit whose settle never happened. */
export async function publishCommit(events: EventStream, c: SyntheticCommit): Promise<void> {
  const data: commit.CommitCreated = {
    commitId: c.commitId,
    projectId: c.projectId,
    branch: 'main',
    sequenceNum: 1,
    message: 'work',
    author: { userId: c.author.userId, userName: c.author.userName },
    createdAt: c.createdAt,
    fileCount: c.fileIds.length,
    part: c.part,
    parts: c.parts,
    entries: c.fileIds.map((fileId) => ({ fileId, path: `${fileId}.bin`, action: 'modify', version: 2, sha256: 'a'.repeat(64), size: 1 })),
  };
  await events.publish({ subject: commit.commitCreated.subject, id: c.id ?? `${c.commitId}.${c.part}`, data });
}
