import type { Contract, Endpoint } from './contract.ts';
import * as upload from './upload.ts';
import * as commit from './commit.ts';
import * as drafts from './drafts.ts';
import * as branches from './branches.ts';
import * as download from './download-urls.ts';
import * as restore from './restore.ts';
import * as lock from './lock.ts';
import * as plugins from './plugins.ts';
import * as webhooks from './webhooks.ts';
import * as sessions from './sessions.ts';
import * as identity from './identity.ts';
import * as storage from './storage.ts';
import * as retention from './retention.ts';
import * as orgStorage from './org-storage.ts';
import * as projectDeletion from './project-deletion.ts';
import * as sync from './sync.ts';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isContract = (value: unknown): value is Contract => isObject(value) && typeof value.subject === 'string' && 'request' in value && 'reply' in value;
const isRoute = (value: unknown): value is Endpoint => isObject(value) && isContract(value.contract) && isObject(value.http);

/** A module's routes: each bound contract's own, and each second route (a namespace lists its exports by name). */
function routesOf(module: Record<string, unknown>): Endpoint[] {
  return Object.values(module).flatMap((value): Endpoint[] => {
    if (isRoute(value)) return [value];
    if (isContract(value) && value.http) return [{ contract: value, http: value.http }];
    return [];
  });
}

/**
 * Every public request-reply route: whatever a module of this list binds is served by the gateway and
 * described by OpenAPI (under its binding's tag), with no other list to keep.
 */
export const ENDPOINTS: readonly Endpoint[] = [
  upload,
  commit,
  drafts,
  branches,
  download,
  restore,
  lock,
  plugins,
  webhooks,
  sessions,
  identity,
  storage,
  retention,
  orgStorage,
  projectDeletion,
  sync,
].flatMap(routesOf);
