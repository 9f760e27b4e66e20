import { commit } from '@lode/contracts';
import { Database } from '@lode/db';
import { bulkVersions, type BulkVersion } from '@lode/testkit';
import { seedConfirmedVersions as seedInUploadSchema } from '@lode/upload/repo/seed-versions-repo';
import { serviceNamed } from '../src/registry.ts';

/**
 * Confirmed versions of `count` new files, written by the upload service's own seeding SQL into its
 * schema. Only for commit-scale tests and benchmarks (25,000 files), where pushing each file over
 * HTTP would take minutes; the commit under test still goes through the gateway. The storage keys
 * point at no object until writeBulkBlobs stores them.
 */
export async function seedConfirmedVersions(
  databaseUrl: string,
  owner: { projectId: string; userId: string },
  count: number,
  prefix?: string,
): Promise<BulkVersion[]> {
  const versions = bulkVersions(owner.projectId, count, prefix);
  const db = new Database({ connectionString: databaseUrl, schema: serviceNamed('upload').schema, max: 1 });
  try {
    // A commit's worth per statement: one statement of 100,000 can outlast the statement timeout on a loaded host.
    for (let start = 0; start < count; start += commit.MAX_COMMIT_ENTRIES)
      await seedInUploadSchema(db, owner, versions.slice(start, start + commit.MAX_COMMIT_ENTRIES));
  } finally {
    await db.close();
  }
  return versions;
}
