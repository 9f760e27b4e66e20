import { randomUUID } from 'node:crypto';
import type { CommitRequest, UploadedFile } from '@lode/sdk';
import { readJsonFile, removeFile, writeJsonFile } from './json-file.ts';
import type { Workspace } from './workspace.ts';

/**
 * What a push has done so far, in `.lode/push-journal.json`, so a push interrupted anywhere (even
 * SIGKILLed) and run again neither uploads a confirmed file twice nor commits twice: the confirmed
 * versions are kept as they are confirmed, and the commit is sent with the same idempotency key and,
 * once sent, the same body, which the server answers with the first result.
 */
export interface PushJournal {
  idempotencyKey: string;
  /** Confirmed versions by path; reused while the local file still has that SHA-256. */
  confirmed: Record<string, UploadedFile>;
  /** The commit as sent, kept until its answer is recorded. */
  commit: PendingCommit | null;
}

export interface PendingCommit {
  request: CommitRequest;
  uploads: UploadedFile[];
  deletes: { path: string; fileId: string }[];
  /**
   * The draft a commit above 25,000 entries goes through, once made: the key is bound to it, so a
   * resumed push commits (or is answered again) through the same draft.
   */
  draftId?: string;
}

export class JournalStore {
  readonly #file: string;
  journal: PushJournal;

  private constructor(file: string, journal: PushJournal) {
    this.#file = file;
    this.journal = journal;
  }

  static async open(workspace: Workspace): Promise<JournalStore> {
    const file = workspace.journalFile();
    return new JournalStore(file, await readJsonFile(file, emptyJournal()));
  }

  async recordConfirmed(files: UploadedFile[]): Promise<void> {
    for (const file of files) this.journal.confirmed[file.path] = file;
    await this.save();
  }

  async recordCommit(commit: PendingCommit): Promise<void> {
    this.journal.commit = commit;
    await this.save();
  }

  async recordDraft(draftId: string): Promise<void> {
    if (!this.journal.commit) throw new Error('A draft belongs to a commit the journal holds');
    this.journal.commit.draftId = draftId;
    await this.save();
  }

  /** A refused commit recorded nothing on the server: the key and the body may change on the next try. */
  async forgetCommit(): Promise<void> {
    this.journal.commit = null;
    this.journal.idempotencyKey = randomUUID();
    await this.save();
  }

  save(): Promise<void> {
    return writeJsonFile(this.#file, this.journal);
  }

  /**
   * The push is over: the file goes, and so does what it held in memory, so that a later commit of
   * this process (a push that resumed one commit and then makes its own) gets a key of its own
   * instead of replaying the finished one's (422 idempotency_key_reused).
   */
  finish(): Promise<void> {
    this.journal = emptyJournal();
    return removeFile(this.#file);
  }
}

const emptyJournal = (): PushJournal => ({ idempotencyKey: randomUUID(), confirmed: {}, commit: null });
