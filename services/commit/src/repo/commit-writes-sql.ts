/**
 * The writes of a commit, as CTEs that follow `WITH input AS (…), made AS (…),` in one statement:
 * its entries, the tree rows of files new to the branch and of files it holds, their path keys, and
 * the branch head. `input` has one row per entry with the entry's columns plus in_tree, path_key and
 * tree_version/tree_sha256/tree_size; `recordedAction` names its column holding the action to record.
 * Parameters: $1 commit id, $2 project, $3 sequence number, $4 branch. Shared by a commit sent whole
 * (CommitsRepository.record) and a draft's (StagedCommitsRepository.record), so both move the tree alike.
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
       -- are serialized, and keys of older files are written before the service serves (path-keys.ts).
       keyed AS (
         INSERT INTO file_paths (project_id, path_key, file_id)
         SELECT $2, path_key, file_id FROM input i
         WHERE NOT in_tree AND NOT EXISTS (SELECT FROM file_paths f WHERE f.project_id = $2 AND f.path_key = i.path_key)
       ),
       changed AS (
         UPDATE tree t
         SET path = i.path, version = i.tree_version, sha256 = i.tree_sha256, size = i.tree_size, commit_seq = $3, deleted = i.action = 'delete'
         FROM input i
         WHERE i.in_tree AND t.project_id = $2 AND t.branch = $4 AND t.file_id = i.file_id
       ),
       head AS (
         UPDATE branches SET head_seq = $3 WHERE project_id = $2 AND name = $4
       )`;
}
