import { z } from 'zod';
import { env } from '@lode/config';
import { cursorSecretSetting } from '@lode/db';
import { outboxSettings } from '@lode/outbox';
import { SESSION_MAX_AGE_MS } from './domain/session-rules.ts';

/** A week: long enough to notice a mistake, short enough that a deletion is done within days. */
export const PROJECT_DELETE_WINDOW_MS = 7 * 24 * 3_600_000;
/** Deletions due are looked for every minute: the claim is one indexed query that mostly finds none. */
export const PROJECT_PURGE_INTERVAL_MS = 60_000;

/** The write limit of a project the operator set none for, when the operator sets no other. */
export const DEFAULT_WRITE_LIMIT = { perSecond: 50, burst: 100 };

/** Settings of the identity service, in its own process or embedded. */
export const identitySettings = {
  ...outboxSettings,
  /** Signs the admin lists' cursors (the same secret in every replica). */
  ...cursorSecretSetting,
  /**
   * The operator's write limit, the same variables the gateway reads as every project's default:
   * also the most an org's owner or admin may give their project, so that only the operator lets
   * a project take more of the shared capacity.
   */
  LODE_WRITE_RATE_PER_SECOND: z.coerce.number().positive().default(DEFAULT_WRITE_LIMIT.perSecond),
  LODE_WRITE_RATE_BURST: env.int(DEFAULT_WRITE_LIMIT.burst, 1),
  /** A dashboard session ends this long after sign-in however busy it is (at least a minute). */
  LODE_SESSION_MAX_AGE_MS: env.int(SESSION_MAX_AGE_MS, 60_000),
  /** How long a deleted project can be brought back before it is purged (all its rows and objects deleted). */
  LODE_PROJECT_DELETE_WINDOW_MS: env.int(PROJECT_DELETE_WINDOW_MS, 0),
  /** How often the identity service looks for deleted projects whose window has passed. */
  LODE_PROJECT_PURGE_INTERVAL_MS: env.int(PROJECT_PURGE_INTERVAL_MS, 100),
};
