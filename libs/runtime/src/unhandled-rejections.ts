import { instruments, type Logger } from '@lode/telemetry';

/** The message of the fatal line, by which tests find it in a process's output. */
export const UNHANDLED_REJECTION_MESSAGE = 'unhandled promise rejection';

/**
 * Every server process's guard rail (docs/architecture.md, Unhandled rejections). A promise that
 * rejects with no handler is a bug on a path that has already lost its caller; Node's default would
 * end the process, putting a whole deployment one bad request away from an outage. Instead the
 * rejection is logged at fatal level with its stack, counted (lode_process_unhandled_rejections_total,
 * to alert on), and the process goes on serving.
 *
 * The request id comes from the logger's mixin: on Node 24 AsyncLocalStorage reads, inside this
 * listener, the context in which the promise was rejected (AsyncContextFrame, on by default), which
 * for an async function or a `.then` chain is that of the request that started it.
 */
export function guardUnhandledRejections(logger: Logger): void {
  process.on('unhandledRejection', (reason) => {
    instruments().unhandledRejections.add(1);
    logger.fatal({ err: reason }, UNHANDLED_REJECTION_MESSAGE);
  });
}
