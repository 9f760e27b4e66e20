import { errors } from '@lode/errors';
import type { Database } from '@lode/db';
import { writeOutbox } from '@lode/outbox';
import { projectDeletion, type Actor } from '@lode/contracts';
import type { ApiKeysRepository } from '../repo/api-keys-repo.ts';
import type { MembershipsRepository } from '../repo/memberships-repo.ts';
import type { ProjectsRepository } from '../repo/projects-repo.ts';
import type { ProjectRow } from '../repo/rows.ts';
import { deletedProjectRefusal } from './deleted-project.ts';
import { view } from './views.ts';

/** Deletions one purge run claims, each announced by its own event. */
const PURGES_PER_RUN = 100;

/** Why a project cannot be deleted or brought back as asked: the refusal its state calls for. */
function stateRefusal(project: ProjectRow | undefined) {
  if (!project) return errors.notFound('Project');
  return deletedProjectRefusal(project) ?? errors.projectNotDeleted();
}

/**
 * Deleting a project, bringing it back, and purging it once its undo window has passed. A deleted
 * project keeps every row and object in every service until the purge: deletion only marks it here,
 * which refuses its keys and hides it, so bringing it back restores it as it was. The purge marks
 * it purged and announces project.purged in one transaction; each service then deletes its own rows
 * (and the upload service the objects). The row stays as a tombstone: its id is never reused.
 */
export class ProjectDeletionService {
  readonly #db: Database;
  readonly #projects: ProjectsRepository;
  readonly #members: MembershipsRepository;
  readonly #keys: ApiKeysRepository;
  readonly #windowMs: number;
  readonly #onPurged: () => void;

  constructor(deps: {
    db: Database;
    projects: ProjectsRepository;
    members: MembershipsRepository;
    keys: ApiKeysRepository;
    /** How long a deleted project can be brought back before it is purged. */
    windowMs: number;
    /** Called once a purge is committed, to publish its events at once. */
    onPurged: () => void;
  }) {
    this.#db = deps.db;
    this.#projects = deps.projects;
    this.#members = deps.members;
    this.#keys = deps.keys;
    this.#windowMs = deps.windowMs;
    this.#onPurged = deps.onPurged;
  }

  /** The org's owners delete: the role is read again here, not taken from the gateway's cached key. */
  async deleteByOwner(actor: Actor) {
    await this.#requireOwner(actor.projectId, actor.userId, 'delete a project');
    return this.#delete(actor.projectId, actor.userId);
  }

  deleteByOperator(projectId: string) {
    return this.#delete(projectId, null);
  }

  /** From the dashboard: a project outside the viewer's orgs is unknown (404), as everywhere there. */
  async undeleteByOwner(viewerId: string, projectId: string) {
    await this.#requireOwner(projectId, viewerId, 'bring a deleted project back');
    return this.#undelete(projectId);
  }

  undeleteByOperator(projectId: string) {
    return this.#undelete(projectId);
  }

  /**
   * Claims the deletions due, announces them and deletes their keys, in one transaction per batch:
   * a purged project never keeps a key, and a run that finds nothing due touches no tombstone.
   * Replicas may run it at once: each claims other projects (SKIP LOCKED). Answers how many
   * projects it purged.
   */
  async purgeDue(): Promise<number> {
    let purged = 0;
    for (;;) {
      const claimed = await this.#db.transaction(async (tx) => {
        const rows = await this.#projects.claimDue(tx, PURGES_PER_RUN);
        await this.#keys.deleteOfProjects(
          tx,
          rows.map((row) => row.id),
        );
        await writeOutbox(
          tx,
          rows.map((row) => {
            const event: projectDeletion.ProjectPurged = { projectId: row.id, orgId: row.org_id, purgedAt: row.purged_at!.toISOString() };
            // The project's id names its one purge: a relay publishing it twice stores it once.
            return { subject: projectDeletion.projectPurged.subject, id: row.id, data: event };
          }),
        );
        return rows.length;
      });
      if (claimed > 0) this.#onPurged();
      purged += claimed;
      if (claimed < PURGES_PER_RUN) break;
    }
    return purged;
  }

  async #delete(projectId: string, deletedBy: string | null) {
    const row = await this.#projects.markDeleted(this.#db, projectId, deletedBy, this.#windowMs);
    if (!row) throw stateRefusal(await this.#projects.find(this.#db, projectId));
    return view.deletion(row);
  }

  async #undelete(projectId: string) {
    const row = await this.#projects.restore(this.#db, projectId);
    if (!row) throw stateRefusal(await this.#projects.find(this.#db, projectId));
    return view.project(row);
  }

  async #requireOwner(projectId: string, userId: string, what: string) {
    const project = await this.#projects.find(this.#db, projectId);
    const membership = project && (await this.#members.find(this.#db, project.org_id, userId));
    if (!project || !membership) throw errors.notFound('Project');
    if (membership.role !== 'owner') throw errors.forbidden(`Only the organization's owners ${what}`);
  }
}
