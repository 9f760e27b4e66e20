import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { Database } from '@lode/db';
import { seedConfirmedVersions as seedInUploadSchema } from '@lode/upload/repo/seed-versions-repo';
import { seedConfirmedVersions } from '../testing/bulk-versions.ts';
import { serviceNamed } from '../src/registry.ts';
import type { FaultSystem } from './fault-system.ts';
import type { KnownVersion } from './ledger.ts';
import type { Actor, Workload } from './workload.ts';

/** The 25,000-file commit's files: confirmed first versions, seeded in SQL (pushing each would take minutes). */
export async function seedLargeCommit(system: FaultSystem, owner: Actor, count: number): Promise<KnownVersion[]> {
  const versions = await seedConfirmedVersions(system.stack.databaseUrl, owner, count);
  return versions.map((v) => ({ fileId: v.fileId, path: v.path, version: v.version, sha256: v.sha256 }));
}

/**
 * Files to restore in one large restore: `count` files whose version 1 all share one real object,
 * pushed once (storage is checked once per distinct object), as deduplicated content would. Never
 * committed, so the restore makes each a version 2 and adds it to main.
 */
export async function seedLargeRestore(system: FaultSystem, workload: Workload, owner: Actor, count: number): Promise<KnownVersion[]> {
  const [object] = await workload.push(owner, [{ path: `restore-source/${randomUUID()}.bin`, bytes: randomBytes(64) }]);
  const [{ storageKey, size }] = await system.sql<{ storageKey: string; size: number }>(
    'SELECT storage_key AS "storageKey", size FROM files.versions WHERE file_id = $1 AND version = $2',
    [object.fileId, object.version],
  );
  const prefix = `large-restore-${randomUUID().slice(0, 8)}`;
  const files = Array.from({ length: count }, (_, i) => ({
    fileId: randomUUID(),
    path: `${prefix}/file-${String(i).padStart(6, '0')}.bin`,
    sha256: object.sha256,
    size,
    storageKey,
  }));
  const db = new Database({ connectionString: system.stack.databaseUrl, schema: serviceNamed('upload').schema, max: 1 });
  try {
    await seedInUploadSchema(db, owner, files);
  } finally {
    await db.close();
  }
  return files.map((f) => ({ fileId: f.fileId, path: f.path, version: 1, sha256: f.sha256 }));
}

/**
 * Holds the project's commit-number row (inserting it, uncommitted, when the project has none yet)
 * until `release`: a commit of the project waits inside its transaction for its number, so a test can
 * find that transaction open and kill its process midway, however fast the machine runs the commit.
 */
export async function holdCommitNumbers(system: FaultSystem, projectId: string): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: system.stack.databaseUrl });
  await client.connect();
  const schema = serviceNamed('commit').schema;
  await client.query('BEGIN');
  await client.query(
    `INSERT INTO ${schema}.project_sequences (project_id, last_seq) VALUES ($1, 0)
     ON CONFLICT (project_id) DO UPDATE SET last_seq = ${schema}.project_sequences.last_seq`,
    [projectId],
  );
  return {
    async release() {
      await client.query('ROLLBACK');
      await client.end();
    },
  };
}
