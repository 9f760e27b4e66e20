import { z } from 'zod';
import semver from 'semver';
import { defineContract } from './contract.ts';
import { defineEvent } from './event.ts';
import { actorSchema, byteSize, sha256Hex, uuid, userRefSchema } from './common.ts';
import { pageQuerySchema, PROJECT_PATH } from './commit.ts';
import { base64Md5, confirmTimeoutMs, requiredHeadersSchema } from './upload.ts';

/** Shared plugins (docs/api.md, Plugins): packages published once per organization, offered to each of its projects. */

export const MAX_PLUGIN_NAME = 64;
/** Semver sets no length; this keeps versions (and their order keys) short enough to index and read. */
export const MAX_PLUGIN_VERSION = 128;
export const MAX_PLUGIN_DESCRIPTION = 2000;

export const pluginName = z
  .string()
  .max(MAX_PLUGIN_NAME, `must be at most ${MAX_PLUGIN_NAME} characters`)
  .regex(/^[a-z0-9][a-z0-9._-]*$/, 'must be lower-case letters, digits, ".", "_" or "-", starting with a letter or digit');

/**
 * A semver version exactly as semver.org writes it: no leading "v" or "=", no spaces (semver's parser
 * would accept and drop them, so two spellings could name one version). Build metadata is kept as
 * written; it takes no part in precedence, so versions that differ only in it are the same version.
 */
export const pluginVersion = z
  .string()
  .max(MAX_PLUGIN_VERSION, `must be at most ${MAX_PLUGIN_VERSION} characters`)
  .refine((value) => {
    const parsed = semver.parse(value);
    return parsed !== null && parsed.version + (parsed.build.length > 0 ? `+${parsed.build.join('.')}` : '') === value;
  }, 'must be a semantic version such as 1.4.0 or 2.0.0-rc.1');

const description = z.string().max(MAX_PLUGIN_DESCRIPTION, `must be at most ${MAX_PLUGIN_DESCRIPTION} characters`);

/** A plugin as the list shows it: its newest version by semver precedence, and that version's description. */
export const pluginSchema = z.object({
  name: z.string(),
  latestVersion: z.string(),
  description: z.string().nullable(),
  /** When its last version was published (any version, not only the newest). */
  updatedAt: z.string(),
});
export type Plugin = z.infer<typeof pluginSchema>;

/** A published version as recorded: what its API view and its event both carry. */
const publishedVersionSchema = z.object({
  name: z.string(),
  version: z.string(),
  sha256: z.string(),
  size: byteSize,
  description: z.string().nullable(),
  publishedBy: userRefSchema,
  createdAt: z.string(),
});

export const pluginVersionSchema = publishedVersionSchema.extend({
  /** A presigned GET of the version's bytes, valid for an hour. */
  downloadUrl: z.string(),
});
export type PluginVersion = z.infer<typeof pluginVersionSchema>;

const page = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), nextCursor: z.string().nullable() });

/** A call about one plugin, named in its path, on behalf of the actor. */
const onePluginSchema = z.object({ actor: actorSchema, name: pluginName });

const PLUGINS_PATH = `${PROJECT_PATH}/plugins`;
const VERSIONS_PATH = `${PLUGINS_PATH}/:name/versions`;
const pluginRoute = { tag: 'Plugins', auth: 'key', params: { name: pluginName } } as const;

export const list = defineContract('upload', 'list_plugins', z.object({ actor: actorSchema, ...pageQuerySchema.shape }), page(pluginSchema), {
  method: 'get',
  path: PLUGINS_PATH,
  tag: 'Plugins',
  summary: "The project's plugins",
  auth: 'key',
  query: pageQuerySchema,
});

export const listVersions = defineContract('upload', 'list_plugin_versions', onePluginSchema.extend(pageQuerySchema.shape), page(pluginVersionSchema), {
  ...pluginRoute,
  method: 'get',
  path: VERSIONS_PATH,
  summary: "A plugin's versions",
  query: pageQuerySchema,
});

/** Size is checked by the domain, for 413 as a file's initiate answers. */
export const initiateBodySchema = z.object({
  version: pluginVersion,
  sha256: sha256Hex,
  size: byteSize,
  contentMd5: base64Md5,
  description: description.optional(),
});
export type InitiateBody = z.output<typeof initiateBodySchema>;

export const initiateReplySchema = z.object({
  name: z.string(),
  version: z.string(),
  storageKey: z.string(),
  uploadUrl: z.string(),
  requiredHeaders: requiredHeadersSchema,
});
export type InitiateReply = z.infer<typeof initiateReplySchema>;

export const initiate = defineContract('upload', 'initiate_plugin_version', onePluginSchema.extend(initiateBodySchema.shape), initiateReplySchema, {
  ...pluginRoute,
  method: 'post',
  path: `${VERSIONS_PATH}/initiate`,
  summary: 'Reserve a plugin version and get its upload URL',
  write: true,
  body: initiateBodySchema,
  errors: [409],
});

export const confirmBodySchema = z.object({
  version: pluginVersion,
  storageKey: z.string().min(1).max(512),
  sha256: sha256Hex,
  size: byteSize,
});
export type ConfirmBody = z.output<typeof confirmBodySchema>;

export const confirm = defineContract('upload', 'confirm_plugin_version', onePluginSchema.extend(confirmBodySchema.shape), pluginVersionSchema, {
  ...pluginRoute,
  method: 'post',
  path: `${VERSIONS_PATH}/confirm`,
  summary: 'Publish an uploaded plugin version',
  write: true,
  body: confirmBodySchema,
  status: 201,
  errors: [409, 422],
  // The same allowance as a file's confirm: an S3 driver may read the bytes once to check their SHA-256.
  timeoutMs: ({ size }) => confirmTimeoutMs(size),
});

/**
 * A version of a plugin was published (recorded, immutable). Goes out through the upload service's
 * outbox, in the transaction that records the version; `projectId` is the project it was published through.
 */
export const pluginPublished = defineEvent(
  'plugin.published',
  z.object({
    orgId: uuid,
    projectId: uuid,
    ...publishedVersionSchema.shape,
  }),
);
