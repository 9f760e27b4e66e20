import { LOCAL_OBJECTS_ROUTE } from '@lode/storage';
import { buildOpenApiDocument } from '../../src/openapi/document.ts';

/** The port a route is on: the API's, or the ops port every process serves (libs/runtime ops-server.ts). */
export type Surface = 'api' | 'ops';

/**
 * What the fuzz authenticates a route's requests with: the fuzz project's key and device, the admin
 * token, the signature of a presigned URL (part of the valid request itself), or nothing.
 */
export type RouteAuth = 'key' | 'admin' | 'signed-url' | 'none';

/** A route as the fuzz sends it. */
export interface Route {
  /** The OpenAPI operationId of a route the document describes; a name of the fuzz's own for the others. */
  key: string;
  /** Upper case, as sent. */
  method: string;
  /** The express route template (`/api/v1/projects/:projectId/locks`); `*name` takes the rest of the path. */
  path: string;
  surface: Surface;
  auth: RouteAuth;
  /** Its share of the fuzz's requests against the other routes': 1 unless WEIGHTS gives more. */
  weight: number;
}

type UnweighedRoute = Omit<Route, 'weight'>;

type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
type PathItem = NonNullable<OpenApiDocument['paths']>[string];
type OperationObject = NonNullable<PathItem['get']>;

const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * What the fuzz sends for each of the document's security schemes. It holds a project key with its
 * device and the admin token, never a dashboard session: a session-only route is sent without
 * credentials and answers 401 before its input is read, which is what the fuzz can test of it.
 */
const SCHEME_AUTH: Readonly<Partial<Record<string, RouteAuth>>> = { projectKey: 'key', deviceId: 'key', adminToken: 'admin', session: 'none' };

/** It answers with Server-Sent Events: given valid credentials, a stream that never ends. */
function streams(operation: OperationObject): boolean {
  return Object.values(operation.responses ?? {}).some(
    (response) => (response as { content?: Record<string, unknown> }).content?.['text/event-stream'] !== undefined,
  );
}

function authOf(key: string, operation: OperationObject): RouteAuth {
  // A stream would hold its request open past the fuzz's wait for an answer: sent without credentials it
  // answers 401 at once, and its own tests (services/webhooks/test/feed*.test.ts) cover its query and headers.
  if (streams(operation)) return 'none';
  const accepted = (operation.security ?? []).flatMap(Object.keys).map((scheme) => {
    const auth = SCHEME_AUTH[scheme];
    if (!auth) throw new Error(`${key}: the fuzz holds no credentials of the security scheme ${scheme}`);
    return auth;
  });
  return accepted.find((auth) => auth !== 'none') ?? 'none';
}

/** Every operation of the OpenAPI document, keyed by its operationId (unique: openapi.test.ts checks it). */
function describedRoutes(document: OpenApiDocument): UnweighedRoute[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    OPERATION_METHODS.flatMap((method): UnweighedRoute[] => {
      const operation = item[method];
      if (!operation) return [];
      const key = operation.operationId;
      if (!key) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      return [{ key, method: method.toUpperCase(), path: path.replace(/\{(\w+)\}/g, ':$1'), surface: 'api', auth: authOf(key, operation) }];
    }),
  );
}

/** The Git LFS server's routes under one of its prefixes; `lfs/lfs-credentials.ts` takes the fuzz's Bearer key and device. */
function lfsRoutes(name: string, prefix: string): UnweighedRoute[] {
  const route = (op: string, method: string, path: string): UnweighedRoute => ({
    key: `${name}-${op}`,
    method,
    path: `${prefix}${path}`,
    surface: 'api',
    auth: 'key',
  });
  return [
    route('batch', 'POST', '/objects/batch'),
    route('verify', 'POST', '/objects/verify'),
    route('lock', 'POST', '/locks'),
    route('locks', 'GET', '/locks'),
    route('locks-verify', 'POST', '/locks/verify'),
    route('unlock', 'POST', '/locks/:lockId/unlock'),
  ];
}

/**
 * What the OpenAPI document does not describe, kept by hand: the pages and files served to browsers,
 * the local storage driver's presigned URLs (mounted in app.ts at LOCAL_OBJECTS_ROUTE), the Git LFS
 * server, and the ops port.
 */
const UNDESCRIBED_ROUTES: readonly UnweighedRoute[] = [
  // The dashboard's hashed assets (routes/web.ts): a name the build does not have is a JSON 404.
  { key: 'web-asset', method: 'GET', path: '/assets/:file', surface: 'api', auth: 'none' },
  { key: 'docs', method: 'GET', path: '/docs', surface: 'api', auth: 'none' },
  { key: 'docs-initializer', method: 'GET', path: '/docs/init.js', surface: 'api', auth: 'none' },
  // Swagger UI's files (swagger-ui-dist), served statically under /docs/assets.
  { key: 'docs-asset', method: 'GET', path: '/docs/assets/:file', surface: 'api', auth: 'none' },

  // The path after the mount is the object key; the query carries the signature (libs/storage local-http.ts).
  { key: 'object-put', method: 'PUT', path: `${LOCAL_OBJECTS_ROUTE}*key`, surface: 'api', auth: 'signed-url' },
  { key: 'object-get', method: 'GET', path: `${LOCAL_OBJECTS_ROUTE}*key`, surface: 'api', auth: 'signed-url' },
  { key: 'object-head', method: 'HEAD', path: `${LOCAL_OBJECTS_ROUTE}*key`, surface: 'api', auth: 'signed-url' },

  // The Git LFS server (lfs/lfs-routes.ts): a protocol of its own (docs/api.md), under either name of the project.
  ...lfsRoutes('lfs', '/lfs/:projectId'),
  ...lfsRoutes('lfs-by-slugs', '/lfs/:orgSlug/:projectSlug'),

  { key: 'ops-healthz', method: 'GET', path: '/healthz', surface: 'ops', auth: 'none' },
  { key: 'ops-readyz', method: 'GET', path: '/readyz', surface: 'ops', auth: 'none' },
  { key: 'ops-metrics', method: 'GET', path: '/metrics', surface: 'ops', auth: 'none' },
];

/**
 * Routes sent more often than the others, by key: the writes and reads with the most input to get
 * wrong and the most code behind them. The catalogue test fails on a key that names no route.
 */
export const WEIGHTS: Readonly<Partial<Record<string, number>>> = {
  postAuthValidateKey: 3,
  postProjectsFilesUploadInitiate: 6,
  postProjectsFilesUploadInitiateBatch: 5,
  postProjectsFilesUploadConfirm: 6,
  postProjectsFilesUploadConfirmBatch: 5,
  postProjectsCommits: 10,
  postProjectsDrafts: 3,
  getProjectsDraftsByDraftId: 2,
  postProjectsDraftsByDraftIdFiles: 5,
  postProjectsDraftsByDraftIdCommit: 3,
  getProjectsFilesByFileIdVersions: 5,
  getProjectsCommits: 3,
  getProjectsCommitsByCommitId: 3,
  getProjectsCommitsByCommitIdFiles: 3,
  getProjectsFiles: 4,
  getProjectsFolders: 3,
  getProjectsBranches: 3,
  postProjectsBranches: 4,
  deleteProjectsBranchesByName: 3,
  postProjectsBranchesByNameMerge: 5,
  postProjectsLocks: 6,
  getProjectsLocks: 4,
  deleteProjectsLocks: 5,
  postProjectsSync: 7,
  postProjectsRestore: 7,
  postProjectsFilesDownloadUrls: 5,
  getProjectsPlugins: 2,
  getProjectsPluginsByNameVersions: 2,
  postProjectsPluginsByNameVersionsInitiate: 3,
  postProjectsPluginsByNameVersionsConfirm: 3,
  postProjectsWebhooks: 2,
  patchProjectsWebhooksByWebhookId: 2,
  postSession: 2,
  postAdminOrgs: 2,
  postAdminUsers: 2,
  postAdminOrgsByOrgIdMembers: 2,
  postAdminOrgsByOrgIdProjects: 2,
  postAdminProjectsKeys: 2,
  'lfs-batch': 5,
  'lfs-verify': 3,
  'lfs-lock': 3,
  'lfs-unlock': 3,
  'object-put': 3,
  'object-get': 3,
};

/**
 * Every route a client can reach, as the fuzz sends them: each operation of the OpenAPI document
 * (so a route bound in libs/contracts, or described beside its hand-written handler, is fuzzed as
 * soon as it exists), then UNDESCRIBED_ROUTES.
 *
 * Keeping it complete: fuzz.test.ts builds the gateway's express app and fails when it registers a
 * route (or mounts a handler under a path) that is not listed here, and when a route has no valid
 * request in valid-requests.ts; the ops port is not express, so a path added to ops-server.ts must
 * be added to UNDESCRIBED_ROUTES by hand.
 */
export const ROUTES: readonly Route[] = [...describedRoutes(buildOpenApiDocument()), ...UNDESCRIBED_ROUTES].map((route) => ({
  ...route,
  weight: WEIGHTS[route.key] ?? 1,
}));

/** The keys among `keys` that name no catalogue route: a weight or a valid request left behind by a renamed route. */
export function strayKeys(keys: Iterable<string>): string[] {
  const listed = new Set(ROUTES.map((route) => route.key));
  return [...keys].filter((key) => !listed.has(key));
}
