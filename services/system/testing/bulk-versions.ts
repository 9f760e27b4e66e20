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
    await seedInUploadSchema(db, owner, versions);
  } finally {
    await db.close();
  }
  return versions;
}
