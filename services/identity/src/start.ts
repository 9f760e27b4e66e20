import path from 'node:path';
import { servePing, serveRpcs, type Bus, type EventStream } from '@lode/bus';
import { CursorCodec, migrate, type Database } from '@lode/db';
import { startOutbox, withOutbox, type OutboxOptions, type OutboxRelay } from '@lode/outbox';
import { runPeriodically } from '@lode/runtime';
import type { Logger } from '@lode/telemetry';
import type { identity } from '@lode/contracts';
import { DEFAULT_WRITE_LIMIT, PROJECT_DELETE_WINDOW_MS, PROJECT_PURGE_INTERVAL_MS } from './config.ts';
import { ApiKeysRepository } from './repo/api-keys-repo.ts';
import { KeyIdentitiesRepository } from './repo/key-identities-repo.ts';
import { MembershipsRepository } from './repo/memberships-repo.ts';
import { OrgsRepository } from './repo/orgs-repo.ts';
import { ProjectsRepository } from './repo/projects-repo.ts';
import { UsersRepository } from './repo/users-repo.ts';
import { AdminService } from './domain/admin-service.ts';
import { KeysService } from './domain/keys-service.ts';
import { Pager } from './domain/pages.ts';
import { SessionsRepository } from './repo/sessions-repo.ts';
import { SessionsService } from './domain/sessions-service.ts';
import { DashboardService } from './domain/dashboard-service.ts';
import { SESSION_IDLE_MS, SESSION_MAX_AGE_MS } from './domain/session-rules.ts';
import { InvitationsRepository } from './repo/invitations-repo.ts';
import { InvitationsService } from './domain/invitations-service.ts';
import { ProjectDeletionService } from './domain/project-deletion-service.ts';
import { identityRpcs } from './serve.ts';

export const IDENTITY_SCHEMA = 'identity';
const SESSION_PURGE_INTERVAL_MS = 3_600_000;
/** The files the gateway applied before this service owned the schema, unchanged, so existing histories match. */
export const identityMigrations = withOutbox(path.join(import.meta.dirname, '..', 'migrations'));

export interface IdentityDeps {
  db: Database;
  bus: Bus;
  /** Where the identity service's outbox publishes. */
  events: EventStream;
  logger: Logger;
  /** Signs the admin lists' cursors. */
  cursorSecret: string;
  /** The relay runs unless `relay: false` (then the caller starts it); libs/outbox's defaults unless given. */
  outbox?: OutboxOptions;
  /** How long an unused session lives; SESSION_IDLE_MS unless given (tests). */
  sessionIdleMs?: number;
  /** How long a session lives however busy (LODE_SESSION_MAX_AGE_MS); SESSION_MAX_AGE_MS unless given. */
  sessionMaxAgeMs?: number;
  /** How often spent sign-in links, sessions and long-expired invitations are deleted; hourly unless given (tests). */
  sessionPurgeIntervalMs?: number;
  /** The most an owner or admin may set their project's write limit to; DEFAULT_WRITE_LIMIT unless given. */
  maxWriteLimit?: identity.WriteRateLimit;
  /** How long a deleted project can be brought back (LODE_PROJECT_DELETE_WINDOW_MS); PROJECT_DELETE_WINDOW_MS unless given. */
  projectDeleteWindowMs?: number;
  /** How often deletions past their window are purged; PROJECT_PURGE_INTERVAL_MS unless given. */
  projectPurgeIntervalMs?: number;
}

export interface RunningIdentityService {
  /** Publishes the identity service's outbox; started here unless `outbox.relay` is false. */
  relay: OutboxRelay;
  /** Stops the relay, its purge and the session and invitation purges, letting runs in progress finish. */
  stop(): Promise<void>;
}

/** Migrates the `identity` schema and serves key resolution, device binding and every admin operation. */
export async function startIdentityService(deps: IdentityDeps): Promise<RunningIdentityService> {
  const { db, bus } = deps;
  await migrate(db, identityMigrations);
  const pager = new Pager(new CursorCodec(deps.cursorSecret));
  const members = new MembershipsRepository();
  const projects = new ProjectsRepository();
  const apiKeys = new ApiKeysRepository();
  const identities = new KeyIdentitiesRepository();
  const orgs = new OrgsRepository();
  const users = new UsersRepository();
  const keys = new KeysService({ db, keys: apiKeys, identities, members, projects, pager });
  const admin = new AdminService({ db, orgs, users, members, projects, pager });
  const lifetime = { idleMs: deps.sessionIdleMs ?? SESSION_IDLE_MS, maxAgeMs: deps.sessionMaxAgeMs ?? SESSION_MAX_AGE_MS };
  const sessions = new SessionsService({ db, sessions: new SessionsRepository(), users, identities, lifetime });
  const dashboard = new DashboardService({
    db,
    orgs,
    users,
    members,
    projects,
    keys: apiKeys,
    admin,
    keyService: keys,
    pager,
    maxWriteLimit: deps.maxWriteLimit ?? DEFAULT_WRITE_LIMIT,
  });
  const invitations = new InvitationsService({ db, invitations: new InvitationsRepository(), members, orgs, users, pager });
  const outbox = startOutbox({ db, events: deps.events, logger: deps.logger, options: deps.outbox });
  const deletions = new ProjectDeletionService({
    db,
    projects,
    members,
    keys: apiKeys,
    windowMs: deps.projectDeleteWindowMs ?? PROJECT_DELETE_WINDOW_MS,
    onPurged: () => outbox.relay.kick(),
  });
  serveRpcs(bus, identityRpcs({ keys, admin, sessions, dashboard, invitations, deletions }));
  servePing(bus, 'identity', () => db.ping());
  const purgeMs = deps.sessionPurgeIntervalMs ?? SESSION_PURGE_INTERVAL_MS;
  const purge = runPeriodically('session purge', purgeMs, deps.logger, () => sessions.purgeSpent());
  const invitationPurge = runPeriodically('invitation purge', purgeMs, deps.logger, () => invitations.purgeExpired());
  const projectPurge = runPeriodically('project purge', deps.projectPurgeIntervalMs ?? PROJECT_PURGE_INTERVAL_MS, deps.logger, () => deletions.purgeDue());
  return {
    relay: outbox.relay,
    async stop() {
      await Promise.all([outbox.stop(), purge.stop(), invitationPurge.stop(), projectPurge.stop()]);
    },
  };
}
