import { randomUUID } from 'node:crypto';
import { errors } from '@lode/errors';
import { managesOrg, plugins, upload, type Actor, type EventOf } from '@lode/contracts';
import type { CursorCodec, Database } from '@lode/db';
import { writeOutbox, type OutboxEvent } from '@lode/outbox';
import type { BlobStorage } from '@lode/storage';
import type { PluginsRepository, PluginVersionRow } from '../repo/plugins-repo.ts';
import { uploadUrlTtlSeconds } from './initiate-entries.ts';
import { versionOrderKey } from './plugin-version-order.ts';
import { ObjectVerifier } from './stored-content.ts';

/** How long a plugin version's download URL stays valid, as a file version's does (docs/api.md). */
export const PLUGIN_DOWNLOAD_URL_TTL_SECONDS = 3600;

type Page<T> = { data: T[]; nextCursor: string | null };

/** Plugin objects live in a namespace of their org, apart from every project's files. */
export function pluginStorageKey(orgId: string, uploadId: string): string {
  return `o/${orgId}/plugins/${uploadId}`;
}

/**
 * Shared plugins (docs/api.md, Plugins): an org's packages, listed to each of its projects and
 * published by its owners and admins with the same signed PUT and byte check as a file upload.
 * Everything is scoped by the actor's org, so another org's plugin is simply not found.
 */
export class PluginService {
  readonly #db: Database;
  readonly #plugins: PluginsRepository;
  readonly #storage: BlobStorage;
  readonly #verifier: ObjectVerifier;
  readonly #cursors: CursorCodec;
  readonly #onPublished: () => void;

  constructor(deps: { db: Database; plugins: PluginsRepository; storage: BlobStorage; cursors: CursorCodec; onPublished: () => void }) {
    this.#db = deps.db;
    this.#plugins = deps.plugins;
    this.#storage = deps.storage;
    this.#verifier = new ObjectVerifier(deps.storage);
    this.#cursors = deps.cursors;
    this.#onPublished = deps.onPublished;
  }

  async list(actor: Actor, cursor: string | undefined, limit: number): Promise<Page<plugins.Plugin>> {
    const scope = ['plugins', actor.orgId];
    const after = cursor === undefined ? undefined : this.#decode(cursor, scope);
    const rows = await this.#plugins.listPlugins(this.#db, actor.orgId, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      data: page.map((row) => ({ name: row.name, latestVersion: row.latestVersion, description: row.description, updatedAt: row.updatedAt.toISOString() })),
      nextCursor: rows.length > limit && last ? this.#cursors.encode([...scope, last.name]) : null,
    };
  }

  async listVersions(actor: Actor, name: string, cursor: string | undefined, limit: number): Promise<Page<plugins.PluginVersion>> {
    const scope = ['plugin-versions', actor.orgId, name];
    const before = cursor === undefined ? undefined : this.#decode(cursor, scope);
    const rows = await this.#plugins.listVersions(this.#db, actor.orgId, name, before, limit + 1);
    if (rows.length === 0 && before === undefined && !(await this.#plugins.pluginExists(this.#db, actor.orgId, name))) throw errors.notFound('Plugin');
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      data: await Promise.all(page.map((row) => this.#view(row))),
      nextCursor: rows.length > limit && last ? this.#cursors.encode([...scope, last.versionOrder]) : null,
    };
  }

  /** Reserves a publish and signs the PUT of its bytes, exactly as a file upload's initiate does. */
  async initiate(actor: Actor, name: string, body: plugins.InitiateBody): Promise<plugins.InitiateReply> {
    this.#requirePublisher(actor);
    if (body.size > upload.MAX_FILE_SIZE) throw errors.fileTooLarge(body.size, upload.MAX_FILE_SIZE);
    if (await this.#plugins.versionExists(this.#db, actor.orgId, name, versionOrderKey(body.version))) throw errors.versionExists(name, body.version);
    const id = randomUUID();
    const storageKey = pluginStorageKey(actor.orgId, id);
    const ttl = uploadUrlTtlSeconds(body.size);
    await this.#plugins.reserve(this.#db, {
      id,
      orgId: actor.orgId,
      name,
      version: body.version,
      storageKey,
      sha256: body.sha256,
      size: body.size,
      description: body.description ?? null,
      uploaderId: actor.userId,
      expiresAt: new Date(Date.now() + ttl * 1000),
    });
    const signed = await this.#storage.presignPut({
      key: storageKey,
      size: body.size,
      contentMd5: body.contentMd5,
      sha256: body.sha256,
      expiresInSeconds: ttl,
    });
    return {
      name,
      version: body.version,
      storageKey,
      uploadUrl: signed.url,
      requiredHeaders: signed.headers as plugins.InitiateReply['requiredHeaders'],
    };
  }

  /**
   * Checks the stored bytes as a file confirm does, then records the immutable version and its
   * plugin.published event in one transaction. A repeated confirm of the same reservation answers
   * with the version it made; a version another publish recorded first is 409 version_exists.
   */
  async confirm(actor: Actor, name: string, body: plugins.ConfirmBody): Promise<plugins.PluginVersion> {
    this.#requirePublisher(actor);
    const reservation = await this.#plugins.findUpload(this.#db, actor.orgId, body.storageKey);
    if (!reservation) throw errors.notFound('Plugin upload');
    if (reservation.name !== name || reservation.version !== body.version) {
      throw errors.validation('name and version do not match the publish initiated for this storageKey');
    }
    if (reservation.sha256 !== body.sha256 || reservation.size !== body.size) {
      throw errors.contentMismatch('sha256 and size must match the values given at initiate');
    }
    if (reservation.state === 'confirmed') return this.#recorded(actor.orgId, reservation.id);
    const versionOrder = versionOrderKey(reservation.version);
    // A publish that already lost is told so before its bytes are read (an S3 object is read whole).
    if (await this.#plugins.versionExists(this.#db, actor.orgId, name, versionOrder)) throw errors.versionExists(name, reservation.version);
    await this.#verifier.verifyOne({ storageKey: reservation.storage_key, sha256: reservation.sha256, size: reservation.size });

    const outcome = await this.#db.transaction(async (tx) => {
      const state = await this.#plugins.lockUpload(tx, reservation.id);
      if (state !== 'reserved') return state ?? 'gone';
      const recorded = await this.#plugins.recordVersion(tx, {
        orgId: actor.orgId,
        name,
        version: reservation.version,
        versionOrder,
        sha256: reservation.sha256,
        size: reservation.size,
        storageKey: reservation.storage_key,
        description: reservation.description,
        publishedById: actor.userId,
        publishedByName: actor.userName,
        uploadId: reservation.id,
      });
      if (!recorded) throw errors.versionExists(name, reservation.version);
      await writeOutbox(tx, [publishedEvent(actor, reservation.id, recorded)]);
      return recorded;
    });
    if (outcome === 'gone') throw errors.notFound('Plugin upload (expired and collected; initiate again)');
    if (outcome === 'confirmed') return this.#recorded(actor.orgId, reservation.id);
    this.#onPublished();
    return this.#view(outcome);
  }

  #requirePublisher(actor: Actor): void {
    if (!managesOrg(actor.role)) throw errors.forbidden('Only org owners and admins may publish plugins');
  }

  async #recorded(orgId: string, uploadId: string): Promise<plugins.PluginVersion> {
    const row = await this.#plugins.versionOfUpload(this.#db, orgId, uploadId);
    if (!row) throw new Error(`confirmed plugin upload ${uploadId} has no version`);
    return this.#view(row);
  }

  async #view(row: PluginVersionRow): Promise<plugins.PluginVersion> {
    return {
      ...publishedFields(row),
      downloadUrl: await this.#storage.presignGet({ key: row.storageKey, expiresInSeconds: PLUGIN_DOWNLOAD_URL_TTL_SECONDS }),
    };
  }

  /** A cursor names its list (and org, and plugin), so it cannot page through another (400). */
  #decode(cursor: string, scope: readonly string[]): string {
    const parts = this.#cursors.decode(cursor);
    const position = parts[scope.length];
    if (parts.length !== scope.length + 1 || !scope.every((part, i) => parts[i] === part) || typeof position !== 'string') {
      throw errors.validation('Invalid cursor');
    }
    return position;
  }
}

function publishedEvent(actor: Actor, uploadId: string, row: PluginVersionRow): OutboxEvent {
  const data: EventOf<typeof plugins.pluginPublished> = {
    orgId: actor.orgId,
    projectId: actor.projectId,
    ...publishedFields(row),
  };
  return { subject: plugins.pluginPublished.subject, id: uploadId, data };
}

/** What a version's API view and its event share. */
function publishedFields(row: PluginVersionRow): Omit<plugins.PluginVersion, 'downloadUrl'> {
  return {
    name: row.name,
    version: row.version,
    sha256: row.sha256,
    size: row.size,
    description: row.description,
    publishedBy: { userId: row.publishedById, userName: row.publishedByName },
    createdAt: row.createdAt.toISOString(),
  };
}
