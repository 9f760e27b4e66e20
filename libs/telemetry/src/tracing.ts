import { context, propagation, SpanKind, SpanStatusCode, trace, type Span, type Context } from '@opentelemetry/api';

export const tracer = trace.getTracer('lode');
export { SpanKind };

/** Writes W3C trace context (traceparent, tracestate) into any header carrier. */
export function injectTraceContext(set: (key: string, value: string) => void): void {
  propagation.inject(
    context.active(),
    {},
    {
      set: (_carrier, key, value) => set(key, value),
    },
  );
}

/** Reads trace context from a header carrier into a context that a server span can be a child of. */
export function extractTraceContext(get: (key: string) => string | undefined): Context {
  return propagation.extract(
    context.active(),
    {},
    {
      get: (_carrier, key) => get(key),
      keys: () => ['traceparent', 'tracestate'],
    },
  );
}

/** Runs fn inside a span that records an exception and an error status when fn throws. */
export async function inSpan<T>(
  name: string,
  options: { kind: SpanKind; attributes?: Record<string, string | number | boolean>; parent?: Context },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  return tracer.startActiveSpan(name, { kind: options.kind, attributes: options.attributes ?? {} }, parent, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
