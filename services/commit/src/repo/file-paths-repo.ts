import { textList, UNIT_SEPARATOR, type Queryable } from '@lode/db';

export interface UnkeyedPath {
  projectId: string;
  fileId: string;
  path: string;
}

/** Files committed before file_paths existed (migration 0010), waiting for their path keys. */
export class FilePathsRepository {
  async unkeyed(q: Queryable, limit: number): Promise<UnkeyedPath[]> {
    const { rows } = await q.query<UnkeyedPath>(`SELECT project_id AS "projectId", file_id AS "fileId", path FROM file_paths_unkeyed LIMIT $1`, [limit]);
    return rows;
  }

  /**
   * Keys these files and takes them off the waiting list, in one statement. A key already there is
   * the same file's (the upload service keeps one file per key): another replica keyed it first.
   */
  async key(q: Queryable, paths: readonly UnkeyedPath[], keys: readonly string[]): Promise<void> {
    await q.query(
      `WITH k AS (
         SELECT * FROM unnest(string_to_array($1, ',')::uuid[], string_to_array($2, ',')::uuid[], string_to_array($3, E'\\x1f'))
           AS k(project_id, file_id, path_key)
       ),
       keyed AS (
         INSERT INTO file_paths (project_id, path_key, file_id) SELECT project_id, path_key, file_id FROM k ON CONFLICT DO NOTHING
       )
       DELETE FROM file_paths_unkeyed u USING k WHERE u.project_id = k.project_id AND u.file_id = k.file_id`,
      [textList(paths.map((p) => p.projectId)), textList(paths.map((p) => p.fileId)), textList(keys, UNIT_SEPARATOR)],
    );
  }
}
