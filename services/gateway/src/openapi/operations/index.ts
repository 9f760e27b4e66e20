import type { OperationGroup } from '../operation.ts';
import { boundGroup } from '../bound-operations.ts';
import { authOperations } from './auth.ts';
import { dashboardOperations } from './dashboard.ts';
import { eventOperations } from './events.ts';
import { healthOperations } from './health.ts';
import { referenceOperations } from './reference.ts';
import { sessionOperations } from './sessions.ts';
import { syncOperations } from './sync.ts';

/**
 * Every route of the API, one group per tag, in the order the reference shows them. A bound contract
 * is listed under its binding's tag; a hand-written route (a stream, a redirect, a route that is not
 * one bus call) is described in its group's file. The OpenAPI test fails until the routes the gateway
 * serves and this list are the same, and while a bound contract's tag has no group here.
 */
export const OPERATION_GROUPS: readonly OperationGroup[] = [
  authOperations,
  syncOperations,
  boundGroup('Uploads', 'Reserve versions and their presigned PUT URLs, then confirm what was uploaded.'),
  boundGroup('Commits', 'Make confirmed versions visible, and read the history: versions, the log, a commit, the tree and its folders.'),
  boundGroup(
    'Drafts',
    'Draft commits: stage more than 25,000 file versions over many calls, then commit them as one (docs/api.md, Draft commits). Every call counts against the write rate limit.',
  ),
  boundGroup('Branches', 'Branches and merges (docs/api.md, Branches and Merge).'),
  boundGroup('Downloads', 'Presigned download URLs for many files at once (docs/api.md, Batch download URLs).'),
  boundGroup('Restore', 'Bring files back to earlier versions in one new commit.'),
  boundGroup('Locks', 'Exclusive locks on files while they are edited.'),
  boundGroup(
    'Storage',
    "What a project's storage holds and costs, and taking it back: usage with its history, obliterating files or versions, quotas (docs/storage.md).",
  ),
  boundGroup('Projects', 'Deleting a project: its owners delete it, it is purged after the undo window unless brought back (docs/api.md, Deleting a project).'),
  boundGroup('Plugins', "Shared plugins: a project's tools, versioned, published through the same presigned upload as files (docs/api.md, Plugins)."),
  boundGroup(
    'Webhooks',
    "Signed HTTP callbacks for the project's events (docs/api.md, Webhooks): managed by its organization's owners and admins, and by operators.",
  ),
  eventOperations,
  sessionOperations,
  dashboardOperations,
  boundGroup('Admin', "The operators' API: organizations, users, members, projects and keys (docs/api.md, Admin API)."),
  healthOperations,
  referenceOperations,
];
