import { LOCAL_OBJECTS_ROUTE } from '@lode/storage';

/**
 * Every route a client can reach, as the fuzz test sends them: the gateway's express routes
 * (services/gateway/src/routes/*.ts and app.ts), the local storage driver's signed URLs (mounted in
 * app.ts at LOCAL_OBJECTS_ROUTE), and the ops port every process serves (libs/runtime ops-server.ts).
 *
 * Keeping it complete: fuzz.test.ts builds the gateway's express app and fails when it registers a
 * route (or mounts a handler under a path) that is not listed here; the ops port is not express,
 * so a path added to ops-server.ts must be added here by hand. A new entry also needs its valid
 * request in valid-requests.ts, which the typecheck enforces.
 */
export const ROUTES = [
  { key: 'validate-key', method: 'POST', path: '/api/v1/auth/validate-key', surface: 'api', auth: 'key', weight: 3 },

  { key: 'initiate', method: 'POST', path: '/api/v1/projects/:projectId/files/upload/initiate', surface: 'api', auth: 'key', weight: 6 },
  { key: 'initiate-batch', method: 'POST', path: '/api/v1/projects/:projectId/files/upload/initiate-batch', surface: 'api', auth: 'key', weight: 5 },
  { key: 'confirm', method: 'POST', path: '/api/v1/projects/:projectId/files/upload/confirm', surface: 'api', auth: 'key', weight: 6 },
  { key: 'commit', method: 'POST', path: '/api/v1/projects/:projectId/commits', surface: 'api', auth: 'key', weight: 10 },
  { key: 'versions', method: 'GET', path: '/api/v1/projects/:projectId/files/:fileId/versions', surface: 'api', auth: 'key', weight: 5 },
  { key: 'log', method: 'GET', path: '/api/v1/projects/:projectId/commits', surface: 'api', auth: 'key', weight: 3 },
  { key: 'commit-get', method: 'GET', path: '/api/v1/projects/:projectId/commits/:commitId', surface: 'api', auth: 'key', weight: 3 },
  { key: 'commit-files', method: 'GET', path: '/api/v1/projects/:projectId/commits/:commitId/files', surface: 'api', auth: 'key', weight: 3 },
  { key: 'tree', method: 'GET', path: '/api/v1/projects/:projectId/files', surface: 'api', auth: 'key', weight: 4 },
  { key: 'branches', method: 'GET', path: '/api/v1/projects/:projectId/branches', surface: 'api', auth: 'key', weight: 3 },
  { key: 'create-branch', method: 'POST', path: '/api/v1/projects/:projectId/branches', surface: 'api', auth: 'key', weight: 4 },
  { key: 'delete-branch', method: 'DELETE', path: '/api/v1/projects/:projectId/branches/:name', surface: 'api', auth: 'key', weight: 3 },
  { key: 'merge', method: 'POST', path: '/api/v1/projects/:projectId/branches/:name/merge', surface: 'api', auth: 'key', weight: 5 },
  { key: 'lock', method: 'POST', path: '/api/v1/projects/:projectId/locks', surface: 'api', auth: 'key', weight: 6 },
  { key: 'locks', method: 'GET', path: '/api/v1/projects/:projectId/locks', surface: 'api', auth: 'key', weight: 4 },
  { key: 'unlock', method: 'DELETE', path: '/api/v1/projects/:projectId/locks', surface: 'api', auth: 'key', weight: 5 },
  { key: 'sync', method: 'POST', path: '/api/v1/projects/:projectId/sync', surface: 'api', auth: 'key', weight: 7 },
  { key: 'restore', method: 'POST', path: '/api/v1/projects/:projectId/restore', surface: 'api', auth: 'key', weight: 7 },
  { key: 'download-urls', method: 'POST', path: '/api/v1/projects/:projectId/files/download-urls', surface: 'api', auth: 'key', weight: 5 },

  { key: 'admin-create-org', method: 'POST', path: '/admin/v1/orgs', surface: 'api', auth: 'admin', weight: 2 },
  { key: 'admin-orgs', method: 'GET', path: '/admin/v1/orgs', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-create-user', method: 'POST', path: '/admin/v1/users', surface: 'api', auth: 'admin', weight: 2 },
  { key: 'admin-users', method: 'GET', path: '/admin/v1/users', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-add-member', method: 'POST', path: '/admin/v1/orgs/:orgId/members', surface: 'api', auth: 'admin', weight: 2 },
  { key: 'admin-members', method: 'GET', path: '/admin/v1/orgs/:orgId/members', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-create-project', method: 'POST', path: '/admin/v1/orgs/:orgId/projects', surface: 'api', auth: 'admin', weight: 2 },
  { key: 'admin-projects', method: 'GET', path: '/admin/v1/orgs/:orgId/projects', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-create-key', method: 'POST', path: '/admin/v1/projects/:projectId/keys', surface: 'api', auth: 'admin', weight: 2 },
  { key: 'admin-keys', method: 'GET', path: '/admin/v1/projects/:projectId/keys', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-revoke-key', method: 'DELETE', path: '/admin/v1/keys/:keyId', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-reset-device', method: 'POST', path: '/admin/v1/keys/:keyId/reset-device', surface: 'api', auth: 'admin', weight: 1 },

  { key: 'healthz', method: 'GET', path: '/healthz', surface: 'api', auth: 'none', weight: 1 },
  { key: 'readyz', method: 'GET', path: '/readyz', surface: 'api', auth: 'none', weight: 1 },

  // The path after the mount is the object key; the query carries the signature (libs/storage local-http.ts).
  { key: 'object-put', method: 'PUT', path: `${LOCAL_OBJECTS_ROUTE}*key`, surface: 'api', auth: 'signed-url', weight: 3 },
  { key: 'object-get', method: 'GET', path: `${LOCAL_OBJECTS_ROUTE}*key`, surface: 'api', auth: 'signed-url', weight: 3 },
  { key: 'object-head', method: 'HEAD', path: `${LOCAL_OBJECTS_ROUTE}*key`, surface: 'api', auth: 'signed-url', weight: 1 },

  { key: 'ops-healthz', method: 'GET', path: '/healthz', surface: 'ops', auth: 'none', weight: 1 },
  { key: 'ops-readyz', method: 'GET', path: '/readyz', surface: 'ops', auth: 'none', weight: 1 },
  { key: 'ops-metrics', method: 'GET', path: '/metrics', surface: 'ops', auth: 'none', weight: 1 },
] as const;

export type Route = (typeof ROUTES)[number];
export type RouteKey = Route['key'];
export type Surface = Route['surface'];
