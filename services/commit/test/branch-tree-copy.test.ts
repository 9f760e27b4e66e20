import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaDatabase, type SchemaDatabase } from '@lode/testkit/database';
import { COMMIT_SCHEMA, commitMigrations } from '../src/index.ts';
import { BranchesRepository } from '../src/repo/branches-repo.ts';

// A tree of millions of files is copied a slice per statement; slices of 3 take 7 files in three.
describe("a new branch's tree, copied in slices", () => {
  let database: SchemaDatabase;
  beforeAll(async () => {
    database = await schemaDatabase(COMMIT_SCHEMA, commitMigrations);
  });
  afterAll(() => database?.drop());

  it('copies every file of the parent, whatever the number of slices, and nothing of another branch or project', async () => {
    const { db } = database;
    const [projectId, otherProject] = [randomUUID(), randomUUID()];
    const row = (project: string, branch: string, i: number) => [project, branch, randomUUID(), `art/${i}.png`, i + 1, 'a'.repeat(64), i, 1, i % 2 === 0];
    const rows = [
      ...Array.from({ length: 7 }, (_, i) => row(projectId, 'main', i)),
      ...Array.from({ length: 6 }, (_, i) => row(projectId, 'other', i)),
      ...Array.from({ length: 6 }, (_, i) => row(otherProject, 'main', i)),
    ];
    for (const values of rows) {
      await db.query(
        'INSERT INTO tree (project_id, branch, file_id, path, version, sha256, size, commit_seq, deleted) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
        values,
      );
    }
    const tree = (branch: string) =>
      db
        .query('SELECT file_id, path, version, sha256, size, commit_seq, deleted FROM tree WHERE project_id = $1 AND branch = $2 ORDER BY file_id', [
          projectId,
          branch,
        ])
        .then((r) => r.rows);

    for (const [name, slice] of [
      ['feature', 3],
      ['exact', 7],
      ['whole', 100],
    ] as const) {
      await db.transaction((tx) => new BranchesRepository().copyTree(tx, projectId, 'main', name, slice));
      expect(await tree(name), name).toEqual(await tree('main'));
    }
    expect(await tree('feature')).toHaveLength(7);
  });
});
