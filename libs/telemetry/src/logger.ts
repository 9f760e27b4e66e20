import { pino, type DestinationStream, type Logger } from 'pino';
import { trace } from '@opentelemetry/api';
import { currentRequestId } from './request-context.ts';

export type { DestinationStream, Logger } from 'pino';

/**
 * Every line carries the active trace and span ids and the request id, so a log line leads to its
 * trace. Lines go to stdout unless `destination` says otherwise (a test run's log file).
 */
export function createLogger(name: string, level: string = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  return pino(
    {
      name,
      level,
      base: { service: name },
      mixin() {
        const fields: Record<string, string> = {};
        const requestId = currentRequestId();
        if (requestId) fields.request_id = requestId;
        const span = trace.getActiveSpan();
        if (span) {
          const { traceId, spanId } = span.spanContext();
          fields.trace_id = traceId;
          fields.span_id = spanId;
        }
        return fields;
      },
    },
    destination,
  );
}

/**
 * A log file, appended to asynchronously in blocks (pino's sonic-boom): a line costs a buffered
 * write, not a syscall. flush(cb) waits until what is buffered is in the file; pino writes whatever
 * is left synchronously when the process exits.
 */
export function logFile(file: string): ReturnType<typeof pino.destination> {
  return pino.destination({ dest: file, sync: false, append: true, mkdir: true, minLength: 4096 });
}
