import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { lock } from '@lode/contracts';
import type { EventConsumer } from '@lode/bus';
import { pushFile } from '@lode/testkit';
import { seedConfirmedVersions, startTestStack } from '@lode/system/testing';
import { eventually, withReceiver } from './receiver.ts';

const FILES = 10_000;
/** NATS's max_payload on this machine and by default, and the in-process stream's limit. */
const MIB = 1024 * 1024;
/**
 * Paths near the 1,024-character limit in 3-byte characters (segments stay under 255 bytes): about
 * 2.9 KB each, so the locks of one commit are some 30 MB of JSON.
 */
const LONG_PREFIX = Array.from({ length: 11 }, (_, i) => `${i}${'漢'.repeat(84)}`).join('/');

interface LockEvent {
  projectId: string;
  data: { reason: string; locks: { fileId: string; path: string }[] };
}

describe.each(['local', 'nats'] as const)('a commit releasing 10,000 locks with long paths (%s bus)', (bus) => {
  const harness = withReceiver(() => startTestStack({ bus }));

  it('publishes every release in events under the size limit, in path order, and later lock events still flow', async () => {
    const { stack, receiver } = harness;
    const owner = await stack.seed.project();
    const locks = `/api/v1/projects/${owner.projectId}/locks`;
    const hook = await owner.api.post(`/api/v1/projects/${owner.projectId}/webhooks`, { url: receiver.url, events: ['lock.released'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    receiver.secret = hook.body.secret;
    const internal: lock.LocksChanged[] = [];
    const consumer: EventConsumer = await stack.events.consume(`large-release-${randomUUID().slice(0, 8)}`, lock.locksChanged, async (event) => {
      if (event.projectId === owner.projectId) internal.push(event);
    });
    try {
      const files = await seedConfirmedVersions(stack.databaseUrl, owner, FILES, LONG_PREFIX);
      for (let i = 0; i < FILES; i += lock.MAX_LOCK_FILES) {
        const taken = await owner.api.post(locks, { fileIds: files.slice(i, i + lock.MAX_LOCK_FILES).map((f) => f.fileId) });
        expect(taken.body.acquired).toHaveLength(lock.MAX_LOCK_FILES);
      }
      const commit = await owner.api.post(`/api/v1/projects/${owner.projectId}/commits`, {
        message: 'all of it',
        fileVersions: files.map((f) => ({ fileId: f.fileId, version: 1, action: 'add' })),
      });
      expect(commit.status, JSON.stringify(commit.body)).toBe(201);

      // A lock taken and released afterwards still reaches the webhook: nothing is stuck behind the big release.
      const later = await pushFile(owner.api, owner.projectId, 'later.umap', randomBytes(16));
      expect((await owner.api.post(locks, { fileIds: [later.fileId] })).body.acquired).toHaveLength(1);
      expect((await owner.api.delete(locks, { fileIds: [later.fileId] })).body.released).toHaveLength(1);
      const ofProject = () => receiver.delivered('lock.released').filter((r) => (JSON.parse(r.body) as LockEvent).projectId === owner.projectId);
      await eventually('the later release delivered', () =>
        ofProject().some((r) => (JSON.parse(r.body) as LockEvent).data.locks.some((l) => l.fileId === later.fileId)),
      );

      const committed = await eventually('every committed release delivered', () => {
        const events = ofProject()
          .map((r) => ({ bytes: Buffer.byteLength(r.body), event: JSON.parse(r.body) as LockEvent }))
          .filter((e) => e.event.data.reason === 'committed');
        return events.reduce((n, e) => n + e.event.data.locks.length, 0) >= FILES && events;
      });
      expect(new Set(committed.flatMap((e) => e.event.data.locks.map((l) => l.fileId)))).toEqual(new Set(files.map((f) => f.fileId)));
      expect(committed.length).toBeGreaterThan(1);
      for (const { bytes, event } of committed) {
        expect(bytes).toBeLessThan(MIB);
        expect(event.data.locks.length).toBeLessThanOrEqual(500);
      }

      // The internal events of the release came one after the other, the locks in path order across them.
      await eventually('the internal events of the later release', () => internal.some((e) => e.reason === 'released'));
      const release = internal.filter((e) => e.reason === 'committed').flatMap((e) => e.locks.map((l) => l.fileId));
      expect(release).toEqual(files.map((f) => f.fileId));
    } finally {
      await consumer.stop();
    }
  }, 300_000);
});
