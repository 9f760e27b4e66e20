import { z } from 'zod';

/** Postgres's limits on each pooled connection, in milliseconds; 0 leaves the server's own setting. */
export interface DatabaseTimeouts {
  /** `statement_timeout`: longest one statement runs, waiting for locks included. */
  statementTimeoutMs: number;
  /** `idle_in_transaction_session_timeout`: longest a transaction waits between statements; past it Postgres ends the session. */
  idleInTransactionTimeoutMs: number;
}

/**
 * Far above what a statement needs (even the largest of a 25,000-file commit), and
 * far below the bus's 30 s: a stuck statement or transaction is ended and answered 503 while the
 * caller still waits, instead of holding a connection and its locks until the pool is exhausted.
 */
export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { statementTimeoutMs: 15_000, idleInTransactionTimeoutMs: 20_000 };

/** The longest a bus call inside a transaction may wait, however long Postgres would allow. */
const MAX_CALL_IN_TRANSACTION_MS = 5_000;

/**
 * A bus call's deadline inside a transaction: at most a third of the smaller limit, so the call
 * gives up, and the transaction ends, well before Postgres would cancel or end it.
 */
export function callTimeoutInTransaction(timeouts: DatabaseTimeouts): number {
  const limits = [timeouts.statementTimeoutMs, timeouts.idleInTransactionTimeoutMs].filter((ms) => ms > 0);
  return Math.min(MAX_CALL_IN_TRANSACTION_MS, ...limits.map((ms) => Math.max(1, Math.floor(ms / 3))));
}

/** The database settings of every service process (README, Configuration). */
export const databaseSettings = {
  LODE_DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(DEFAULT_DATABASE_TIMEOUTS.statementTimeoutMs),
  LODE_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(0).default(DEFAULT_DATABASE_TIMEOUTS.idleInTransactionTimeoutMs),
};

export function databaseTimeouts(config: { LODE_DB_STATEMENT_TIMEOUT_MS: number; LODE_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: number }): DatabaseTimeouts {
  return { statementTimeoutMs: config.LODE_DB_STATEMENT_TIMEOUT_MS, idleInTransactionTimeoutMs: config.LODE_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS };
}
