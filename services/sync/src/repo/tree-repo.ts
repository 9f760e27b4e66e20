import { MAX_INT4 } from '@lode/contracts';
import { inKeySlices, LINE_SEPARATOR, ROWS_PER_SLICE, textList, type Queryable, type Slice } from '@lode/db';
import type { RemoteFile } from '../domain/sync-status.ts';
import type { Lineage, StagedRange } from './sync-rows.ts';

/** A listed file looked up in the tree, in request order. */
export interface LookedUp {
  remote: RemoteFile | undefined;
  contentKnown: boolean;
}

export interface ListedFile extends RemoteFile {
  path: string;
  pathKey: string;
}

/** Where a page of changes starts: after this commit and path key. */
export interface ChangePosition {
  commitSeq: number;
  pathKey: string;
}

/** The columns of a tree row that a comparison reads. */
interface ProbedRow {
  file_id: string;
  version: number | null;
  sha256: string | null;
  size: number | null;
  commit_seq: number;
  deleted: boolean;
}

interface TreeRow extends ProbedRow {
  path: string;
  path_key: string;
}

/** A LEFT JOIN's columns: all null when the path is not in the tree. */
type Joined<T> = { [K in keyof T]: T[K] | null };

const TREE_COLUMNS = 't.file_id, t.path, t.path_key, t.version, t.sha256, t.size, t.commit_seq, t.deleted';

/** The committed tree per branch (table `tree`). */
export class TreeRepository {
  /**
   * A new branch starts as a copy of its parent's tree at that moment, as the commit service's does:
   * a slice of files per statement, in path key order (every key sorts after '').
   */
  async copyBranch(tx: Queryable, projectId: string, from: string, to: string, rowsPerSlice = ROWS_PER_SLICE): Promise<void> {
    await inKeySlices<string>('', rowsPerSlice, async (after, size) => {
      const { rows } = await tx.query<Slice<string>>(
        `WITH slice AS (
           SELECT * FROM tree WHERE project_id = $1 AND branch = $2 AND path_key > $4 ORDER BY path_key LIMIT $5
         ),
         copied AS (
           INSERT INTO tree (project_id, branch, path_key, path, file_id, version, sha256, size, commit_seq, deleted)
           SELECT project_id, $3, path_key, path, file_id, version, sha256, size, commit_seq, deleted FROM slice
         )
         SELECT count(*)::int AS count, (SELECT path_key FROM slice ORDER BY path_key DESC LIMIT 1) AS last FROM slice`,
        [projectId, from, to, after, size],
      );
      return rows[0];
    });
  }

  /** A deleted branch's files go; its history stays, for the branches forked from it. */
  async deleteBranch(tx: Queryable, projectId: string, branch: string): Promise<void> {
    await tx.query('DELETE FROM tree WHERE project_id = $1 AND branch = $2', [projectId, branch]);
  }

  /** Moves the branch to the staged commit's entries in `range`; a delete keeps the last version's fields, as history does. */
  async applyStaged(tx: Queryable, projectId: string, branch: string, seq: number, range: StagedRange): Promise<void> {
    await tx.query(
      `INSERT INTO tree (project_id, branch, path_key, path, file_id, version, sha256, size, commit_seq, deleted)
       SELECT project_id, $2, path_key, path, file_id, version, sha256, size, commit_seq, action = 'delete'
       FROM staged_entries WHERE project_id = $1 AND commit_seq = $3 AND file_id > $4 AND file_id <= $5
       ON CONFLICT (project_id, branch, path_key) DO UPDATE
         SET path = excluded.path, file_id = excluded.file_id,
             version = COALESCE(excluded.version, tree.version), sha256 = COALESCE(excluded.sha256, tree.sha256),
             size = COALESCE(excluded.size, tree.size), commit_seq = excluded.commit_seq, deleted = excluded.deleted`,
      [projectId, branch, seq, range.after, range.through],
    );
  }

  /**
   * One batch in one statement: each listed path probed in the branch's tree, then in the history
   * index for its local content on the lineage (the versions committed on its segments: its own,
   * and its parents' up to each fork), unless it is the live tip's (up_to_date needs no history). Answers in
   * request order. The LATERAL ... LIMIT subqueries keep both as index probes per listed file
   * whatever the table statistics say: a planner misled by statistics gone stale after a large
   * commit scanned the project's whole tree once per file, which made a batch's probes take seconds.
   * The keys and hashes travel as two texts split by line breaks (no key holds one): a text[]
   * parameter cost the driver and the server more than the probes' output. The tip's hash comes
   * back only where it differs from the listed one, the exception in a workspace that was synced.
   */
  async compare(q: Queryable, projectId: string, lineage: Lineage, files: { keys: readonly string[]; sha256s: readonly string[] }): Promise<LookedUp[]> {
    const { rows } = await q.query<Joined<ProbedRow> & { listed_content: boolean | null; content_known: boolean | null }>(
      `SELECT t.file_id, t.version, t.sha256 = i.sha256 AS listed_content, NULLIF(t.sha256, i.sha256) AS sha256, t.size, t.commit_seq,
              t.deleted, h.known AS content_known
       FROM unnest(string_to_array($4, E'\\n'), string_to_array($5, E'\\n')) WITH ORDINALITY AS i(path_key, sha256, ord)
       LEFT JOIN LATERAL (
         SELECT file_id, version, sha256, size, commit_seq, deleted FROM tree
         WHERE project_id = $1 AND branch = $2 AND path_key = i.path_key COLLATE "C" LIMIT 1
       ) t ON true
       LEFT JOIN LATERAL (
         SELECT true AS known FROM history
         WHERE (t.deleted OR t.sha256 IS DISTINCT FROM i.sha256)
           AND project_id = $1 AND file_id = t.file_id AND sha256 = i.sha256 COLLATE "C"
           AND EXISTS (SELECT FROM unnest($3::text[], $6::int[], $7::int[]) AS s(branch, after, through)
                       WHERE history.branch = s.branch AND history.commit_seq > s.after AND history.commit_seq <= s.through)
         LIMIT 1
       ) h ON true
       ORDER BY i.ord`,
      [
        projectId,
        lineage.branch,
        lineage.segments.map((s) => s.branch),
        textList(files.keys, LINE_SEPARATOR),
        textList(files.sha256s, LINE_SEPARATOR),
        lineage.segments.map((s) => s.after),
        lineage.segments.map((s) => s.through ?? MAX_INT4),
      ],
    );
    return rows.map((row, i) => {
      if (row.file_id === null) return { remote: undefined, contentKnown: false };
      const sha256 = row.listed_content ? files.sha256s[i] : row.sha256;
      return { remote: remoteFile({ ...(row as ProbedRow), sha256 }), contentKnown: row.content_known === true };
    });
  }

  /**
   * A page of the branch's files, deleted ones included, changed after commit `since` and after
   * `after` in (commit, path key) order: a range of the tree_changes index, however large the tree.
   */
  async listChanged(q: Queryable, projectId: string, branch: string, since: number, after: ChangePosition | undefined, limit: number): Promise<ListedFile[]> {
    const { rows } = await q.query<TreeRow>(
      `SELECT ${TREE_COLUMNS} FROM tree t
       WHERE t.project_id = $1 AND t.branch = $2 AND t.commit_seq > $3 AND (t.commit_seq, t.path_key) > ($4, $5 COLLATE "C")
       ORDER BY t.commit_seq, t.path_key LIMIT $6`,
      [projectId, branch, since, after?.commitSeq ?? since, after?.pathKey ?? '', limit],
    );
    return rows.map((row) => ({ ...remoteFile(row), path: row.path, pathKey: row.path_key }));
  }

  /**
   * A page of the branch's live files that the session did not list, by keyset on the path key:
   * the listing streams, never holding the project's tree. The session's keys are hashed once per
   * page and the tree walked against them; a join that probed per tree row, or rescanned the keys
   * per row as a planner trusting a stale estimate may choose, costs a multiple of that, so only a
   * hash join is allowed, built once (no parallel workers each building it). `tx` must be a
   * transaction: the planner settings are local to it.
   */
  async listUnseen(tx: Queryable, projectId: string, branch: string, sessionId: string, after: string, limit: number): Promise<ListedFile[]> {
    await tx.query('SET LOCAL enable_nestloop = off; SET LOCAL enable_mergejoin = off; SET LOCAL max_parallel_workers_per_gather = 0; SET LOCAL jit = off');
    const { rows } = await tx.query<TreeRow>(
      `SELECT ${TREE_COLUMNS} FROM tree t
       WHERE t.project_id = $1 AND t.branch = $2 AND t.path_key > $4 AND NOT t.deleted
         AND NOT EXISTS (
           SELECT FROM (SELECT string_to_table(path_keys, E'\\n') COLLATE "C" AS path_key
                        FROM session_batches WHERE project_id = $1 AND session_id = $3) listed
           WHERE listed.path_key = t.path_key)
       ORDER BY t.path_key LIMIT $5`,
      [projectId, branch, sessionId, after, limit],
    );
    return rows.map((row) => ({ ...remoteFile(row), path: row.path, pathKey: row.path_key }));
  }
}

function remoteFile(row: ProbedRow): RemoteFile {
  return { fileId: row.file_id, version: row.version, sha256: row.sha256, size: row.size, commitSeq: row.commit_seq, deleted: row.deleted };
}
