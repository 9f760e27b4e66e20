import { pathKey } from '@lode/contracts';
import type { Database } from '@lode/db';
import type { FilePathsRepository } from '../repo/file-paths-repo.ts';

const BATCH = 1000;

/**
 * Keys the paths of files committed before file_paths existed (migration 0010), which the migration
 * could not: keys are JavaScript's case folding (pathKey), not Postgres's. Runs before the service
 * serves, so its commits never race it for a key; replicas starting together may key a file twice,
 * which writes the same key once. Once done, each start reads one empty table.
 */
export async function keyUnkeyedPaths(db: Database, paths: FilePathsRepository): Promise<number> {
  let keyed = 0;
  for (;;) {
    const batch = await paths.unkeyed(db, BATCH);
    if (batch.length === 0) return keyed;
    await paths.key(
      db,
      batch,
      batch.map((row) => pathKey(row.path)),
    );
    keyed += batch.length;
  }
}
