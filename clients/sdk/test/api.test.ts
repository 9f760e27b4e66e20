import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@lode/system/testing';
import {
  allPages,
  commitFiles,
  hashFile,
  LodeApiError,
  LodeClient,
  publishPlugin,
  uploadFiles,
  type FeedMessage,
  type LocalFile,
  type WholeDigest,
} from '../src/index.ts';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** `count` files of random bytes on disk, ready for uploadFiles. */
async function localFiles(count: number, prefix = 'f'): Promise<(LocalFile & { digest: WholeDigest })[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'lode-sdk-'));
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const localPath = path.join(dir, `${prefix}${i}.bin`);
      await writeFile(localPath, randomBytes(1000));
      return { path: `${prefix}/${i}.bin`, localPath, digest: await hashFile(localPath) };
    }),
  );
}

/** A webhook endpoint on loopback that keeps every request. */
async function receiver(): Promise<{ url: string; received: { headers: IncomingHttpHeaders; body: string }[]; close: () => Promise<void> }> {
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The feed's next message of `type`. */
async function nextOf(feed: AsyncGenerator<FeedMessage>, type: string): Promise<FeedMessage & { kind: 'event' }> {
  for await (const message of feed) if (message.kind === 'event' && message.event.type === type) return message;
  throw new Error('the feed ended');
}

describe.each(['local', 'nats'] as const)('the SDK against the API (%s bus)', (bus) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ bus });
  });
  afterAll(async () => stack?.stop());

  /** A client with the key of a new project's owner (who may publish plugins and manage webhooks). */
  const owner = async (project: Parameters<TestStack['seed']['project']>[0] = {}, retry?: { attempts: number }) => {
    const seeded = await stack.seed.project(project);
    return new LodeClient({ url: stack.baseUrl, key: seeded.key, deviceId: seeded.deviceId, retry });
  };

  it('publishes plugin versions and lists them newest first by semver, with bytes that match their SHA-256', async () => {
    const client = await owner();
    const [file] = await localFiles(1);
    for (const version of ['1.9.0', '1.10.0', '1.0.0-rc.1'])
      await publishPlugin(client, 'level-tools', { version, filePath: file.localPath, description: `v${version}` });

    const plugins = await client.listPlugins();
    expect(plugins).toEqual({ data: [expect.objectContaining({ name: 'level-tools', latestVersion: '1.10.0', description: 'v1.10.0' })], nextCursor: null });
    const versions = await client.listPluginVersions('level-tools', { limit: 2 });
    expect(versions.data.map((v) => v.version)).toEqual(['1.10.0', '1.9.0']);
    expect(versions.nextCursor).toEqual(expect.any(String));
    const rest = await client.listPluginVersions('level-tools', { cursor: versions.nextCursor ?? undefined });
    expect(rest.data.map((v) => v.version)).toEqual(['1.0.0-rc.1']);
    const bytes = Buffer.from(await (await fetch(versions.data[0].downloadUrl)).arrayBuffer());
    expect(sha256(bytes)).toBe(file.digest.sha256);
    expect(versions.data[0]).toMatchObject({ sha256: file.digest.sha256, size: file.digest.size });

    const again = await client
      .initiatePluginVersion('level-tools', { version: '1.9.0', sha256: file.digest.sha256, size: file.digest.size, contentMd5: file.digest.md5 })
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(LodeApiError);
    expect(again).toMatchObject({ status: 409, code: 'version_exists' });
  });

  it('manages a webhook: created with its secret, listed and read without it, changed, pinged with a signed delivery, logged, deleted', async () => {
    const client = await owner();
    const endpoint = await receiver();
    try {
      const created = await client.createWebhook({ url: endpoint.url, events: ['commit.created'], description: 'build bot' });
      expect(created).toMatchObject({
        url: endpoint.url,
        events: ['commit.created'],
        description: 'build bot',
        disabled: false,
        secret: expect.stringMatching(/^whsec_/),
      });
      const listed = await client.listWebhooks();
      expect(listed).toEqual([expect.objectContaining({ id: created.id })]);
      expect(listed[0]).not.toHaveProperty('secret');
      expect(await client.getWebhook(created.id)).not.toHaveProperty('secret');

      const changed = await client.updateWebhook(created.id, { events: ['commit.created', 'lock.acquired'], rotateSecret: true });
      expect(changed.events).toEqual(['commit.created', 'lock.acquired']);
      expect(changed.secret).toMatch(/^whsec_/);
      expect(changed.secret).not.toBe(created.secret);

      const { eventId } = await client.pingWebhook(created.id);
      const delivery = await eventually('the ping delivered', async () => endpoint.received.find((r) => r.headers['webhook-id'] === eventId));
      expect(new Webhook(changed.secret ?? '').verify(delivery.body, delivery.headers as Record<string, string>)).toMatchObject({
        id: eventId,
        type: 'webhook.ping',
      });
      const log = await eventually('the ping logged as delivered', async () => {
        const page = await client.listWebhookDeliveries(created.id, { limit: 10 });
        return page.data.find((d) => d.eventId === eventId && d.status === 'delivered');
      });
      expect(log).toMatchObject({ eventType: 'webhook.ping', attempts: 1, lastStatus: 204 });

      expect(await client.deleteWebhook(created.id)).toEqual({ deleted: true });
      await expect(client.getWebhook(created.id)).rejects.toMatchObject({ status: 404 });
    } finally {
      await endpoint.close();
    }
  });

  it('follows the live feed, and resumes after the last event seen with nothing missed or repeated', async () => {
    const client = await owner();
    const files = await localFiles(1);
    const [uploaded] = (await uploadFiles(client, files)).done;
    await commitFiles(
      client,
      { message: 'one', fileVersions: [{ fileId: uploaded.fileId, action: 'add', version: uploaded.version }] },
      { idempotencyKey: randomUUID() },
    );
    await client.lock([uploaded.fileId]);

    // Position 0 of a new project's feed: every event it has had, so nothing depends on when the feed opened.
    const types = ['lock.acquired', 'lock.released'] as const;
    const acquired = await nextOf(client.events({ lastEventId: 0, types: [...types] }), 'lock.acquired');
    expect(acquired.event.data).toMatchObject({ locks: [expect.objectContaining({ fileId: uploaded.fileId })] });

    await client.unlock([uploaded.fileId]);
    const resumed = client.events({ lastEventId: acquired.id, types: [...types] });
    const first = await resumed.next();
    await resumed.return(undefined);
    expect(first.value).toMatchObject({ kind: 'event', event: { type: 'lock.released' } });
    expect((first.value as FeedMessage).id).toBeGreaterThan(acquired.id);
  });

  it('commits above its threshold through a draft, staged in parts, as one commit; reads a draft', async () => {
    const client = await owner();
    const done = (await uploadFiles(client, await localFiles(25))).done;
    const fileVersions = done.map((d) => ({ fileId: d.fileId, action: 'add' as const, version: d.version }));
    const commit = await commitFiles(client, { message: 'import', fileVersions }, { idempotencyKey: randomUUID(), maxEntries: 10 });
    expect(commit).toMatchObject({ sequenceNum: 1, fileCount: 25, branch: 'main' });
    expect((await client.listCommits()).data).toEqual([expect.objectContaining({ id: commit.id, kind: 'draft', fileCount: 25 })]);

    const draft = await client.createDraft('later');
    await client.addDraftFiles(draft.id, fileVersions.slice(0, 3));
    expect(await client.getDraft(draft.id)).toMatchObject({ id: draft.id, message: 'later', branch: 'main', fileCount: 3, expiresAt: expect.any(String) });
    expect(await client.deleteDraft(draft.id)).toEqual({ id: draft.id, deleted: true });
    await expect(client.getDraft(draft.id)).rejects.toMatchObject({ status: 404 });
  });

  it('lists a folder: its subfolders with counts and sizes, then its files, page by page', async () => {
    const client = await owner();
    const done = [...(await uploadFiles(client, await localFiles(3, 'Maps'))).done, ...(await uploadFiles(client, await localFiles(2, 'Art'))).done];
    await client.createCommit({ message: 'import', fileVersions: done.map((d) => ({ fileId: d.fileId, action: 'add' as const, version: d.version })) });
    const first = await client.listFolder({ limit: 1 });
    expect(first.data).toEqual([{ type: 'folder', name: 'Art', path: 'Art/', fileCount: 2, totalSize: 2000 }]);
    expect(await allPages((cursor) => client.listFolder({ limit: 1, cursor }))).toEqual([
      first.data[0],
      { type: 'folder', name: 'Maps', path: 'Maps/', fileCount: 3, totalSize: 3000 },
    ]);
    const maps = await client.listFolder({ prefix: 'Maps' });
    expect(maps.data.map((c) => (c.type === 'file' ? `${c.name} v${c.version}` : c.name))).toEqual(['0.bin v1', '1.bin v1', '2.bin v1']);
    await expect(client.listFolder({ prefix: 'Nowhere/' })).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it('spends one write of the rate limit per confirm-batch call, whatever its size', async () => {
    // A bucket of two writes that refills once in 1,000 s: the third write is refused, whenever it comes.
    const client = await owner({ writeRateLimit: { perSecond: 0.001, burst: 2 } }, { attempts: 1 });
    const result = await uploadFiles(client, await localFiles(40));
    expect(result.failures).toEqual([]);
    expect(result.done).toHaveLength(40);
    await expect(client.lock([result.done[0].fileId])).rejects.toMatchObject({ status: 429, code: 'rate_limited' });
  });
});
