import { textList, UNIT_SEPARATOR, type Queryable } from '@lode/db';

export interface UnkeyedPath {
  projectId: string;
  fileId: string;
  path: string;
}

/** file_paths rows still without a path key: those of files committed before the table existed. */
export class FilePathsRepository {
  async unkeyed(q: Queryable, limit: number): Promise<UnkeyedPath[]> {
    const { rows } = await q.query<UnkeyedPath>(
      `SELECT project_id AS "projectId", file_id AS "fileId", path FROM file_paths WHERE path_key IS NULL LIMIT $1`,
      [limit],
    );
    return rows;
  }

  async setKeys(q: Queryable, paths: readonly UnkeyedPath[], keys: readonly string[]): Promise<void> {
    await q.query(
      `UPDATE file_paths f SET path_key = k.path_key
       FROM unnest(string_to_array($1, ',')::uuid[], string_to_array($2, ',')::uuid[], string_to_array($3, E'\\x1f')) AS k(project_id, file_id, path_key)
       WHERE f.project_id = k.project_id AND f.file_id = k.file_id AND f.path_key IS NULL`,
      [textList(paths.map((p) => p.projectId)), textList(paths.map((p) => p.fileId)), textList(keys, UNIT_SEPARATOR)],
    );
  }
}
