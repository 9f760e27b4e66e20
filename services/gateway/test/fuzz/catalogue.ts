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
  { key: 'confirm-batch', method: 'POST', path: '/api/v1/projects/:projectId/files/upload/confirm-batch', surface: 'api', auth: 'key', weight: 5 },
  { key: 'commit', method: 'POST', path: '/api/v1/projects/:projectId/commits', surface: 'api', auth: 'key', weight: 10 },
  { key: 'draft-create', method: 'POST', path: '/api/v1/projects/:projectId/drafts', surface: 'api', auth: 'key', weight: 3 },
  { key: 'draft-get', method: 'GET', path: '/api/v1/projects/:projectId/drafts/:draftId', surface: 'api', auth: 'key', weight: 2 },
  { key: 'draft-stage', method: 'POST', path: '/api/v1/projects/:projectId/drafts/:draftId/files', surface: 'api', auth: 'key', weight: 5 },
  { key: 'draft-commit', method: 'POST', path: '/api/v1/projects/:projectId/drafts/:draftId/commit', surface: 'api', auth: 'key', weight: 3 },
  { key: 'draft-delete', method: 'DELETE', path: '/api/v1/projects/:projectId/drafts/:draftId', surface: 'api', auth: 'key', weight: 1 },
  { key: 'versions', method: 'GET', path: '/api/v1/projects/:projectId/files/:fileId/versions', surface: 'api', auth: 'key', weight: 5 },
  { key: 'log', method: 'GET', path: '/api/v1/projects/:projectId/commits', surface: 'api', auth: 'key', weight: 3 },
  { key: 'commit-get', method: 'GET', path: '/api/v1/projects/:projectId/commits/:commitId', surface: 'api', auth: 'key', weight: 3 },
  { key: 'commit-files', method: 'GET', path: '/api/v1/projects/:projectId/commits/:commitId/files', surface: 'api', auth: 'key', weight: 3 },
  { key: 'tree', method: 'GET', path: '/api/v1/projects/:projectId/files', surface: 'api', auth: 'key', weight: 4 },
  { key: 'folders', method: 'GET', path: '/api/v1/projects/:projectId/folders', surface: 'api', auth: 'key', weight: 3 },
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
  { key: 'plugins', method: 'GET', path: '/api/v1/projects/:projectId/plugins', surface: 'api', auth: 'key', weight: 2 },
  { key: 'plugin-versions', method: 'GET', path: '/api/v1/projects/:projectId/plugins/:name/versions', surface: 'api', auth: 'key', weight: 2 },
  { key: 'plugin-initiate', method: 'POST', path: '/api/v1/projects/:projectId/plugins/:name/versions/initiate', surface: 'api', auth: 'key', weight: 3 },
  { key: 'plugin-confirm', method: 'POST', path: '/api/v1/projects/:projectId/plugins/:name/versions/confirm', surface: 'api', auth: 'key', weight: 3 },

  { key: 'webhook-create', method: 'POST', path: '/api/v1/projects/:projectId/webhooks', surface: 'api', auth: 'key', weight: 2 },
  { key: 'webhooks', method: 'GET', path: '/api/v1/projects/:projectId/webhooks', surface: 'api', auth: 'key', weight: 1 },
  { key: 'webhook-get', method: 'GET', path: '/api/v1/projects/:projectId/webhooks/:webhookId', surface: 'api', auth: 'key', weight: 1 },
  { key: 'webhook-update', method: 'PATCH', path: '/api/v1/projects/:projectId/webhooks/:webhookId', surface: 'api', auth: 'key', weight: 2 },
  { key: 'webhook-delete', method: 'DELETE', path: '/api/v1/projects/:projectId/webhooks/:webhookId', surface: 'api', auth: 'key', weight: 1 },
  { key: 'webhook-deliveries', method: 'GET', path: '/api/v1/projects/:projectId/webhooks/:webhookId/deliveries', surface: 'api', auth: 'key', weight: 1 },
  { key: 'webhook-ping', method: 'POST', path: '/api/v1/projects/:projectId/webhooks/:webhookId/ping', surface: 'api', auth: 'key', weight: 1 },
  // With a key it is a stream that never ends (Server-Sent Events): the fuzz sends it without one
  // (401); services/webhooks/test/feed.test.ts covers its query and headers.
  { key: 'events', method: 'GET', path: '/api/v1/projects/:projectId/events', surface: 'api', auth: 'none', weight: 1 },
  // The dashboard (issue 21): sessions by cookie, which the fuzz never has (401), and sign-in.
  { key: 'session-sign-in', method: 'POST', path: '/api/v1/session', surface: 'api', auth: 'none', weight: 2 },
  { key: 'session', method: 'GET', path: '/api/v1/session', surface: 'api', auth: 'none', weight: 1 },
  { key: 'session-sign-out', method: 'DELETE', path: '/api/v1/session', surface: 'api', auth: 'none', weight: 1 },
  { key: 'session-options', method: 'GET', path: '/api/v1/session/options', surface: 'api', auth: 'none', weight: 1 },
  { key: 'oidc-start', method: 'GET', path: '/api/v1/session/oidc/start', surface: 'api', auth: 'none', weight: 1 },
  { key: 'oidc-callback', method: 'GET', path: '/api/v1/session/oidc/callback', surface: 'api', auth: 'none', weight: 1 },
  { key: 'my-orgs', method: 'GET', path: '/api/v1/me/orgs', surface: 'api', auth: 'none', weight: 1 },
  { key: 'org-projects', method: 'GET', path: '/api/v1/orgs/:orgId/projects', surface: 'api', auth: 'none', weight: 1 },
  { key: 'org-create-project', method: 'POST', path: '/api/v1/orgs/:orgId/projects', surface: 'api', auth: 'none', weight: 1 },
  { key: 'org-members', method: 'GET', path: '/api/v1/orgs/:orgId/members', surface: 'api', auth: 'none', weight: 1 },
  { key: 'org-set-member', method: 'POST', path: '/api/v1/orgs/:orgId/members', surface: 'api', auth: 'none', weight: 1 },
  { key: 'org-remove-member', method: 'DELETE', path: '/api/v1/orgs/:orgId/members/:userId', surface: 'api', auth: 'none', weight: 1 },
  { key: 'org-invitations', method: 'GET', path: '/api/v1/orgs/:orgId/invitations', surface: 'api', auth: 'none', weight: 1 },
  { key: 'org-invite', method: 'POST', path: '/api/v1/orgs/:orgId/invitations', surface: 'api', auth: 'none', weight: 1 },
  { key: 'org-revoke-invitation', method: 'DELETE', path: '/api/v1/orgs/:orgId/invitations/:invitationId', surface: 'api', auth: 'none', weight: 1 },
  { key: 'my-invitations', method: 'GET', path: '/api/v1/me/invitations', surface: 'api', auth: 'none', weight: 1 },
  { key: 'invitation-accept', method: 'POST', path: '/api/v1/me/invitations/:invitationId/accept', surface: 'api', auth: 'none', weight: 1 },
  { key: 'invitation-decline', method: 'POST', path: '/api/v1/me/invitations/:invitationId/decline', surface: 'api', auth: 'none', weight: 1 },
  { key: 'project-overview', method: 'GET', path: '/api/v1/projects/:projectId/overview', surface: 'api', auth: 'none', weight: 1 },
  { key: 'project-write-limit', method: 'PUT', path: '/api/v1/projects/:projectId/write-rate-limit', surface: 'api', auth: 'none', weight: 1 },
  { key: 'project-keys', method: 'GET', path: '/api/v1/projects/:projectId/keys', surface: 'api', auth: 'none', weight: 1 },
  { key: 'project-create-key', method: 'POST', path: '/api/v1/projects/:projectId/keys', surface: 'api', auth: 'none', weight: 1 },
  { key: 'project-revoke-key', method: 'DELETE', path: '/api/v1/projects/:projectId/keys/:keyId', surface: 'api', auth: 'none', weight: 1 },
  { key: 'project-reset-key', method: 'POST', path: '/api/v1/projects/:projectId/keys/:keyId/reset-device', surface: 'api', auth: 'none', weight: 1 },
  // The dashboard's hashed assets (routes/web.ts): a name the build does not have is a JSON 404.
  { key: 'web-asset', method: 'GET', path: '/assets/:file', surface: 'api', auth: 'none', weight: 1 },
  { key: 'admin-sign-in-link', method: 'POST', path: '/admin/v1/users/:userId/sign-in-links', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-create-org', method: 'POST', path: '/admin/v1/orgs', surface: 'api', auth: 'admin', weight: 2 },
  { key: 'admin-orgs', method: 'GET', path: '/admin/v1/orgs', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-create-user', method: 'POST', path: '/admin/v1/users', surface: 'api', auth: 'admin', weight: 2 },
  { key: 'admin-users', method: 'GET', path: '/admin/v1/users', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-set-user-email', method: 'PATCH', path: '/admin/v1/users/:userId', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-add-member', method: 'POST', path: '/admin/v1/orgs/:orgId/members', surface: 'api', auth: 'admin', weight: 2 },
  { key: 'admin-members', method: 'GET', path: '/admin/v1/orgs/:orgId/members', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-create-project', method: 'POST', path: '/admin/v1/orgs/:orgId/projects', surface: 'api', auth: 'admin', weight: 2 },
  { key: 'admin-projects', method: 'GET', path: '/admin/v1/orgs/:orgId/projects', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-create-key', method: 'POST', path: '/admin/v1/projects/:projectId/keys', surface: 'api', auth: 'admin', weight: 2 },
  { key: 'admin-keys', method: 'GET', path: '/admin/v1/projects/:projectId/keys', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-revoke-key', method: 'DELETE', path: '/admin/v1/keys/:keyId', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-reset-device', method: 'POST', path: '/admin/v1/keys/:keyId/reset-device', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-webhook-create', method: 'POST', path: '/admin/v1/projects/:projectId/webhooks', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-webhooks', method: 'GET', path: '/admin/v1/projects/:projectId/webhooks', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-webhook-get', method: 'GET', path: '/admin/v1/projects/:projectId/webhooks/:webhookId', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-webhook-update', method: 'PATCH', path: '/admin/v1/projects/:projectId/webhooks/:webhookId', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-webhook-delete', method: 'DELETE', path: '/admin/v1/projects/:projectId/webhooks/:webhookId', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-webhook-deliveries', method: 'GET', path: '/admin/v1/projects/:projectId/webhooks/:webhookId/deliveries', surface: 'api', auth: 'admin', weight: 1 },
  { key: 'admin-webhook-ping', method: 'POST', path: '/admin/v1/projects/:projectId/webhooks/:webhookId/ping', surface: 'api', auth: 'admin', weight: 1 },

  { key: 'openapi', method: 'GET', path: '/api/v1/openapi.json', surface: 'api', auth: 'none', weight: 1 },
  { key: 'docs', method: 'GET', path: '/docs', surface: 'api', auth: 'none', weight: 1 },
  { key: 'docs-initializer', method: 'GET', path: '/docs/init.js', surface: 'api', auth: 'none', weight: 1 },
  // Swagger UI's files (swagger-ui-dist), served statically under /docs/assets.
  { key: 'docs-asset', method: 'GET', path: '/docs/assets/:file', surface: 'api', auth: 'none', weight: 1 },
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
