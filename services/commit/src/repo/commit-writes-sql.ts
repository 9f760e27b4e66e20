/**
 * The writes of a commit's entries, as CTEs that follow `WITH input AS (…),` in one statement: the
 * entries, the tree rows of files new to the branch and of files it holds, and their path keys.
 * `input` has one row per entry with the entry's columns plus in_tree, path_key and
 * tree_version/tree_sha256/tree_size; `recordedAction` names its column holding the action to record.
 * Parameters: $1 commit id, $2 project, $3 sequence number, $4 branch. Shared by a commit sent whole
 * (CommitsRepository.record) and each batch of a draft's (StagedCommitsRepository.recordBatch), so
 * both move the tree alike.
 */
export function commitWritesSql(recordedAction: 'action' | 'recorded'): string {
  return `entries AS (
         INSERT INTO commit_entries (commit_id, project_id, branch, file_id, path, action, version, version_id, sha256, size,
                                     storage_key, uploader_id, uploader_name, version_created_at)
         SELECT $1, $2, $4, file_id, path, ${recordedAction}, version, version_id, sha256, size, storage_key, uploader_id, uploader_name, version_created_at
         FROM input
       ),
       added AS (
         INSERT INTO tree (project_id, branch, file_id, path, version, sha256, size, commit_seq, deleted)
         SELECT $2, $4, file_id, path, tree_version, tree_sha256, tree_size, $3, action = 'delete'
         FROM input WHERE NOT in_tree
       ),
       -- No ON CONFLICT (its speculative insertion makes this insert half as costly again): the project's commits
       -- are serialized, and keys of older files are written before the service serves (path-keys.ts). OFFSET 0
       -- keeps the check one index probe per entry: as an anti join the planner hashes every key of the project,
       -- keys that a draft's commit adds batch after batch in one transaction, unseen by its statistics.
       keyed AS (
         INSERT INTO file_paths (project_id, path_key, file_id)
         SELECT $2, path_key, file_id FROM input i
         WHERE NOT in_tree AND NOT EXISTS (SELECT FROM file_paths f WHERE f.project_id = $2 AND f.path_key = i.path_key OFFSET 0)
       ),
       changed AS (
         UPDATE tree t
         SET path = i.path, version = i.tree_version, sha256 = i.tree_sha256, size = i.tree_size, commit_seq = $3, deleted = i.action = 'delete'
         FROM input i
         WHERE i.in_tree AND t.project_id = $2 AND t.branch = $4 AND t.file_id = i.file_id
       )`;
}

/** A CTE moving the branch's head to the commit ($2 project, $3 sequence number, $4 branch), once per commit. */
export const MOVE_BRANCH_HEAD_SQL = `head AS (
         UPDATE branches SET head_seq = $3 WHERE project_id = $2 AND name = $4
       )`;
