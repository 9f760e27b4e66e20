import { errors } from '@lode/errors';
import { branches, type Actor } from '@lode/contracts';
import { MAIN_BRANCH } from '@lode/contracts/commit';
import type { Database, Queryable } from '@lode/db';
import { writeOutbox } from '@lode/outbox';
import type { BranchesRepository, BranchRow } from '../repo/branches-repo.ts';
import { forkLineage, MAIN_LINEAGE, type Lineage } from './lineage.ts';
import type { ListCursors } from './list-cursors.ts';

type Page = { data: branches.Branch[]; nextCursor: string | null };

/** Main before the project's first commit or branch: it exists, with no head and no row yet. */
const UNBORN_MAIN: branches.Branch = { name: MAIN_BRANCH, headCommitId: null, headSequenceNum: null, forkedFrom: null, createdAt: null, createdBy: null };

/**
 * Branches listed, created from any branch's head and deleted (docs/api.md, Branches). Creations
 * and deletions take the project's sequence row as commits do, so each happens between two commits
 * and is published as branch.changed in that place (docs/architecture.md, Lineage).
 */
export class BranchService {
  readonly #db: Database;
  readonly #branches: BranchesRepository;
  readonly #cursors: ListCursors;
  readonly #onChanged: () => void;

  constructor(deps: { db: Database; branches: BranchesRepository; cursors: ListCursors; onChanged: () => void }) {
    this.#db = deps.db;
    this.#branches = deps.branches;
    this.#cursors = deps.cursors;
    this.#onChanged = deps.onChanged;
  }

  async list(actor: Actor, cursor: string | undefined, limit: number): Promise<Page> {
    const scope = ['branches', actor.projectId];
    const after = cursor === undefined ? undefined : this.#cursors.decode(cursor, scope, ['number', 'string']);
    const rows = await this.#branches.page(this.#db, actor.projectId, MAIN_BRANCH, after, limit + 1);
    const listed = rows.map(toBranch);
    if (after === undefined && listed[0]?.name !== MAIN_BRANCH) listed.unshift(UNBORN_MAIN);
    const page = listed.slice(0, limit);
    const last = page.at(-1);
    const more = listed.length > limit && last !== undefined;
    return { data: page, nextCursor: more ? this.#cursors.encode(scope, [last.name === MAIN_BRANCH ? 0 : 1, last.name]) : null };
  }

  /** Forks `from`'s head as it is once the project's commits are held still (409 branch_exists if taken). */
  async create(actor: Actor, name: string, from: string): Promise<branches.Branch> {
    if (name === MAIN_BRANCH) throw errors.branchExists(name);
    const created = await this.#db.transaction(async (tx) => {
      const slot = await this.#branches.lockForChange(tx, actor.projectId);
      const parent = await this.#parentOf(tx, actor.projectId, from);
      const lineage = forkLineage(name, parent.lineage, slot.lastSeq);
      const createdBy = { userId: actor.userId, userName: actor.userName };
      const fork = { headSeq: parent.headSeq, baseSeq: parent.headSeq, forkedFrom: from, createdAfter: slot.lastSeq, lineage, createdBy };
      if (!(await this.#branches.insert(tx, { projectId: actor.projectId, name, ...fork }))) throw errors.branchExists(name);
      await this.#branches.copyTree(tx, actor.projectId, from, name);
      await writeOutbox(tx, [branchChangedEvent(actor.projectId, slot, { name, action: 'created', forkedFrom: from, lineage })]);
      const row = await this.#branches.find(tx, actor.projectId, name);
      if (!row) throw errors.internal();
      return toBranch(row);
    });
    this.#onChanged();
    return created;
  }

  /** Main is protected; another branch goes with its tree, its commits stay in the log. */
  async remove(actor: Actor, name: string): Promise<{ name: string; deleted: true }> {
    if (name === MAIN_BRANCH) throw errors.branchProtected(name);
    await this.#db.transaction(async (tx) => {
      const slot = await this.#branches.lockForChange(tx, actor.projectId);
      if (!(await this.#branches.delete(tx, actor.projectId, name))) throw errors.notFound('Branch');
      await writeOutbox(tx, [branchChangedEvent(actor.projectId, slot, { name, action: 'deleted', forkedFrom: null, lineage: [] })]);
    });
    this.#onChanged();
    return { name, deleted: true };
  }

  /** The branch to fork from; main is given its row here if it has none yet, so it has a creation time. */
  async #parentOf(tx: Queryable, projectId: string, from: string): Promise<{ headSeq: number | null; lineage: Lineage }> {
    const row = await this.#branches.find(tx, projectId, from);
    if (row) return row;
    if (from !== MAIN_BRANCH) throw errors.notFound('Branch');
    const main = { projectId, name: MAIN_BRANCH, headSeq: null, baseSeq: null, forkedFrom: null, createdAfter: 0, lineage: MAIN_LINEAGE, createdBy: null };
    await this.#branches.insert(tx, main);
    return main;
  }
}

function toBranch(row: BranchRow): branches.Branch {
  return {
    name: row.name,
    headCommitId: row.headCommitId,
    headSequenceNum: row.headSeq,
    forkedFrom: row.forkedFrom === null ? null : { branch: row.forkedFrom, sequenceNum: row.baseSeq },
    createdAt: row.createdAt.toISOString(),
    createdBy: row.createdBy,
  };
}

function branchChangedEvent(
  projectId: string,
  slot: { lastSeq: number; change: number },
  change: Pick<branches.BranchChanged, 'name' | 'action' | 'forkedFrom' | 'lineage'>,
) {
  const data: branches.BranchChanged = { projectId, change: slot.change, afterSeq: slot.lastSeq, ...change, lineage: [...change.lineage] };
  return { subject: branches.branchChanged.subject, id: `${projectId}.branch.${slot.change}`, data };
}
