/**
 * Loaded with `node --import` before the application so that instrumentation patches http, express,
 * pg and ioredis before they are first imported. Tracing is off unless an OTLP endpoint or exporter
 * is configured with the standard OTEL_* variables: off, the API is a no-op and costs nothing.
 * Metrics are on unless OTEL_METRICS_EXPORTER=none; each process's ops server serves them.
 */
import { register } from 'node:module';
import { tracingEnabled } from './settings.ts';
import { metricsEnabled, startMetrics } from './metrics-sdk.ts';

if (metricsEnabled(process.env)) startMetrics();

if (tracingEnabled(process.env)) {
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const { startTracing } = await import('./sdk.ts');
  startTracing();
}
