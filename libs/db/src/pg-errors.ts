import { AppError, errors } from '@lode/errors';

interface PgError {
  code?: string;
  constraint?: string;
  detail?: string;
}

/**
 * The one place that turns Postgres SQLSTATEs into domain errors. Repositories let driver errors
 * bubble here; anything unmapped is a bug and surfaces as `internal`.
 */
export function mapPgError(error: unknown): unknown {
  if (error instanceof AppError || typeof error !== 'object' || error === null) return error;
  const { code, constraint } = error as PgError;
  switch (code) {
    case '23505': // unique_violation
      return errors.conflict('A record with the same identity already exists', { constraint });
    case '23503': // foreign_key_violation
      return errors.notFound('Referenced record');
    case '22P02': // invalid_text_representation (a malformed uuid, say)
    case '22003': // numeric_value_out_of_range
      return errors.validation('A value is malformed or out of range');
    case '40001': // serialization_failure
    case '40P01': // deadlock_detected
    case '55P03': // lock_not_available
      return errors.conflict('Concurrent update; retry the request', { retryable: true });
    // A statement past statement_timeout, or a session ended past idle_in_transaction_session_timeout
    // (libs/db timeouts.ts): the database was too slow or too contended this time, and a retry may
    // well succeed, so 503 with Retry-After rather than a 504 that reads as final.
    case '57014': // query_canceled
    case '25P03': // idle_in_transaction_session_timeout
    case '57P01': // admin_shutdown
    case '57P02': // crash_shutdown
    case '57P03': // cannot_connect_now (starting up, recovering)
    case '53300': // too_many_connections
      return errors.serviceUnavailable('database');
    default:
      // Class 08 (connection exceptions) and the socket errors of a database that is down or gone:
      // the request may succeed on retry, so 503 rather than a 500 that clients do not retry.
      if (code?.startsWith('08') || UNREACHABLE.has(code ?? '')) return errors.serviceUnavailable('database');
      if (code === undefined && error instanceof Error && CONNECTION_LOST.has(error.message)) return errors.serviceUnavailable('database');
      return error;
  }
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * What node-postgres throws, with no SQLSTATE, for a connection that closed under a query (a server
 * stopped or killed, a network cut) or a pooled client handed out just after its backend died (seen
 * in the fault suite as a 500 from a confirm while Postgres was stopped). Its messages are all it
 * gives to tell them apart.
 */
const CONNECTION_LOST = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'timeout exceeded when trying to connect',
]);

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as PgError;
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}
