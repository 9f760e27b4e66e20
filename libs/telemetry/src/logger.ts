import { pino, type Logger } from 'pino';
import { trace } from '@opentelemetry/api';
import { currentRequestId } from './request-context.ts';

export type { Logger } from 'pino';

/** Every line carries the active trace and span ids and the request id, so a log line leads to its trace. */
export function createLogger(name: string, level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
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
  });
}
