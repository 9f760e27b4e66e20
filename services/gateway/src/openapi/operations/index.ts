import type { OperationGroup } from '../operation.ts';
import { adminOperations } from './admin.ts';
import { authOperations } from './auth.ts';
import { branchOperations } from './branches.ts';
import { commitOperations } from './commits.ts';
import { dashboardOperations } from './dashboard.ts';
import { downloadOperations } from './downloads.ts';
import { draftOperations } from './drafts.ts';
import { eventOperations } from './events.ts';
import { healthOperations } from './health.ts';
import { lockOperations } from './locks.ts';
import { pluginOperations } from './plugins.ts';
import { referenceOperations } from './reference.ts';
import { restoreOperations } from './restore.ts';
import { sessionOperations } from './sessions.ts';
import { syncOperations } from './sync.ts';
import { uploadOperations } from './uploads.ts';
import { webhookOperations } from './webhooks.ts';

/**
 * Every route of the API, one group per route file, in the order the reference shows them. A new
 * route is described in its group's file (a new route file gets a group here); the OpenAPI test
 * fails until the routes the gateway serves and this list are the same.
 */
export const OPERATION_GROUPS: readonly OperationGroup[] = [
  authOperations,
  syncOperations,
  uploadOperations,
  commitOperations,
  draftOperations,
  branchOperations,
  downloadOperations,
  restoreOperations,
  lockOperations,
  pluginOperations,
  webhookOperations,
  eventOperations,
  sessionOperations,
  dashboardOperations,
  adminOperations,
  healthOperations,
  referenceOperations,
];
