import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { restore } from '@lode/contracts';
import { bulkContent, writeBulkBlobs } from '@lode/testkit';
import { seedConfirmedVersions } from '@lode/system/testing';
import { stackWithProject } from '@lode/system/testing/stack-with-project';

/** Seeding writes 25,000 objects and makes two 25,000-file commits before the restore is even sent. */
const LARGE_TEST_TIMEOUT_MS = 180_000;

describe.each(['local', 'nats'] as const)('a 25,000-file restore (%s bus)', (bus) => {
  const harness = stackWithProject({ bus });

  it(
    'brings back 25,000 deleted files in one restore commit, each downloadable byte for byte',
    async () => {
      const { stack, project: p } = harness;
      const files = await seedConfirmedVersions(stack.databaseUrl, p, restore.MAX_RESTORE_FILES);
      await writeBulkBlobs(stack.storage, files);
      const commits = `/api/v1/projects/${p.projectId}/commits`;
      const added = await p.api.post(commits, { message: 'add', fileVersions: files.map((f) => ({ fileId: f.fileId, version: 1, action: 'add' })) });
      expect(added.status).toBe(201);
      const deleted = await p.api.post(commits, { message: 'delete', fileVersions: files.map((f) => ({ fileId: f.fileId, action: 'delete' })) });
      expect(deleted.status).toBe(201);

      const res = await p.api.post(`/api/v1/projects/${p.projectId}/restore`, { files: files.map((f) => ({ fileId: f.fileId, toVersion: 1 })) });
      expect(res.status).toBe(200);
      expect(res.body.sequenceNum).toBe(deleted.body.sequenceNum + 1);
      expect(res.body.skipped).toEqual([]);
      expect(res.body.restored).toEqual(files.map((f) => ({ fileId: f.fileId, newVersion: 2 })));

      for (const f of [files[0], files[12_345], files[24_999]]) {
        const history = await p.api.get(`/api/v1/projects/${p.projectId}/files/${f.fileId}/versions`);
        const [newest] = history.body.data;
        expect(newest).toMatchObject({ version: 2, commitId: res.body.commitId, sha256: f.sha256, size: f.size });
        const bytes = Buffer.from(await (await fetch(newest.downloadUrl)).arrayBuffer());
        expect(bytes.equals(bulkContent(f))).toBe(true);
        expect(createHash('sha256').update(bytes).digest('hex')).toBe(newest.sha256);
      }
    },
    LARGE_TEST_TIMEOUT_MS,
  );
});
