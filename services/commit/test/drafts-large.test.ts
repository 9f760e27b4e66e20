import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { commit } from '@lode/contracts';
import { seedConfirmedVersions } from '@lode/system/testing';
import { stackWithProject } from '@lode/system/testing/stack-with-project';

const FILES = 100_000;
/** Seeding 100,000 versions, four 25,000-entry staging calls, the commit and the read model catching up. */
const LARGE_TEST_TIMEOUT_MS = 400_000;
/** NATS's max_payload on this machine and by default. */
const MAX_PAYLOAD = 1024 * 1024;

describe.each(['local', 'nats'] as const)('a 100,000-file draft (%s bus)', (bus) => {
  const harness = stackWithProject({ bus });

  it(
    'is staged in 4 calls and lands as one commit, seen whole by the log, the tree, the events and sync',
    async () => {
      const { stack, project: p } = harness;
      const base = `/api/v1/projects/${p.projectId}`;
      const files = await seedConfirmedVersions(stack.databaseUrl, p, FILES);
      const draft = await p.api.post(`${base}/drafts`, { message: 'first import' });
      expect(draft.status).toBe(201);
      for (let start = 0; start < FILES; start += commit.MAX_COMMIT_ENTRIES) {
        const page = files.slice(start, start + commit.MAX_COMMIT_ENTRIES);
        const staged = await p.api.post(`${base}/drafts/${draft.body.id}/files`, {
          fileVersions: page.map((f) => ({ fileId: f.fileId, version: 1, action: 'add' })),
        });
        expect(staged.status, JSON.stringify(staged.body).slice(0, 500)).toBe(200);
        expect(staged.body.fileCount).toBe(start + page.length);
      }

      const res = await p.api.post(`${base}/drafts/${draft.body.id}/commit`);
      expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(201);
      expect(res.body).toEqual({ id: expect.any(String), sequenceNum: 1, message: 'first import', fileCount: FILES, branch: 'main' });

      const log = await p.api.get(`${base}/commits`);
      expect(log.body.data).toEqual([expect.objectContaining({ id: res.body.id, kind: 'draft', fileCount: FILES })]);
      const byPath = [...files].sort((a, b) => (a.path < b.path ? -1 : 1));
      const tree = await p.api.get(`${base}/files?limit=200`);
      expect(tree.body.data.map((row: { path: string; version: number }) => [row.path, row.version])).toEqual(byPath.slice(0, 200).map((f) => [f.path, 1]));
      const entries = await p.api.get(`${base}/commits/${res.body.id}/files?limit=1`);
      expect(entries.body.data[0]).toMatchObject({ path: byPath[0].path, action: 'add', version: 1, sha256: byPath[0].sha256 });

      // Every part of commit.created under NATS's payload limit, together every entry once, each saying it came from a draft;
      // parts numbered 1, 2, … in outbox order (so published in order), each id its commit's and number, and the entries in
      // file id order across parts: the commit is written in batches, and their parts must read as one sequence.
      const db = new pg.Client({ connectionString: stack.databaseUrl });
      await db.connect();
      try {
        const { rows } = await db.query<{ parts: number; entries: number; distinct: number; largest: number; kinds: string[] }>(
          `SELECT count(*)::int AS parts, sum(jsonb_array_length(payload::jsonb->'entries'))::int AS entries,
                array_agg(DISTINCT payload::jsonb->>'kind') AS kinds,
                count(DISTINCT payload::jsonb->>'parts')::int AS distinct, max(octet_length(payload))::int AS largest
         FROM commits.outbox WHERE event_id LIKE $1`,
          [`${res.body.id}.%`],
        );
        expect(rows[0]).toMatchObject({ entries: FILES, distinct: 1, kinds: ['draft'] });
        expect(rows[0].parts).toBeGreaterThan(1);
        expect(rows[0].largest).toBeLessThan(MAX_PAYLOAD / 2 + 64 * 1024);
        const { rows: order } = await db.query<{ numbers: number[]; ids: string[]; parts: number[]; ordered: boolean }>(
          `WITH parts AS (
           SELECT id, event_id, (payload::jsonb->>'part')::int AS part, (payload::jsonb->>'parts')::int AS parts, payload::jsonb->'entries' AS entries
           FROM commits.outbox WHERE event_id LIKE $1
         ),
         entries AS (
           SELECT p.id, e.n, e.entry->>'fileId' AS file_id FROM parts p, jsonb_array_elements(p.entries) WITH ORDINALITY AS e(entry, n)
         )
         SELECT array_agg(part ORDER BY id) AS numbers, array_agg(event_id ORDER BY id) AS ids, array_agg(DISTINCT parts) AS parts,
                (SELECT bool_and(file_id::uuid > previous) FROM (
                   SELECT file_id, lag(file_id::uuid) OVER (ORDER BY id, n) AS previous FROM entries
                 ) o WHERE previous IS NOT NULL) AS ordered
         FROM parts`,
          [`${res.body.id}.%`],
        );
        const numbers = Array.from({ length: rows[0].parts }, (_, i) => i + 1);
        expect(order[0]).toEqual({ numbers, ids: numbers.map((n) => `${res.body.id}.${n}`), parts: [rows[0].parts], ordered: true });
      } finally {
        await db.end();
      }

      // Sync answers once its read model applied the whole commit (503 sync_catching_up until then).
      const probe = [files[0], files[54_321], files[FILES - 1]];
      const deadline = Date.now() + 240_000;
      let synced = await p.api.post(`${base}/sync`, { files: probe.map((f) => ({ path: f.path, sha256: f.sha256 })) });
      while (synced.status === 503 && Date.now() < deadline)
        synced = await p.api.post(`${base}/sync`, { files: probe.map((f) => ({ path: f.path, sha256: f.sha256 })) });
      expect(synced.status, JSON.stringify(synced.body)).toBe(200);
      expect(synced.body.latestCommitSeq).toBe(1);
      expect(synced.body.files.map((row: { status: string; remoteCommitSeq: number }) => [row.status, row.remoteCommitSeq])).toEqual(
        probe.map(() => ['up_to_date', 1]),
      );
    },
    LARGE_TEST_TIMEOUT_MS,
  );
});
