import { errors, isAppError, type AppError } from '@lode/errors';
import type { Contract, ParsedRequestOf } from '@lode/contracts';
import type { Logger } from '@lode/telemetry';
import type { Handler } from './bus.ts';

/**
 * What both buses do with a request on the serving side: validate it against the contract, run the
 * handler, and turn anything that is not an AppError into `internal` (logged, never leaked).
 */
export async function dispatch<C extends Contract>(contract: C, handler: Handler<C>, payload: unknown, logger: Logger): Promise<unknown> {
  const parsed = contract.request.safeParse(payload);
  if (!parsed.success) {
    throw errors.validation(`Invalid ${contract.subject} request`, {
      issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  }
  try {
    return await handler(parsed.data as ParsedRequestOf<C>);
  } catch (error) {
    throw asAppError(error, contract, logger);
  }
}

export function asAppError(error: unknown, contract: Contract, logger: Logger): AppError {
  if (isAppError(error)) return error;
  logger.error({ err: error, subject: contract.subject }, 'handler failed');
  return errors.internal();
}

/** The calling side validates the reply too: a server speaking an older contract fails loudly here. */
export function parseReply<C extends Contract>(contract: C, reply: unknown, logger: Logger): unknown {
  const parsed = contract.reply.safeParse(reply);
  if (parsed.success) return parsed.data;
  logger.error({ subject: contract.subject, issues: parsed.error.issues.slice(0, 5) }, 'reply breaks its contract');
  throw errors.internal();
}
