import { pino, type Logger } from 'pino';
import { trace } from '@opentelemetry/api';

export type { Logger } from 'pino';

/** Every line carries the active trace and span ids, so a log line leads to its trace. */
export function createLogger(name: string, level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name,
    level,
    base: { service: name },
    mixin() {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
  });
}
