import type { IncomingMessage, ServerResponse } from 'node:http';
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { serviceName } from './service-name.ts';

let exporter: PrometheusExporter | undefined;

/**
 * Registers the global meter provider with a Prometheus reader that serves no port of its own: each
 * process's ops server answers /metrics with it. Idempotent.
 */
export function startMetrics(name = serviceName()): void {
  if (exporter) return;
  exporter = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({ resource: resourceFromAttributes({ 'service.name': name }), readers: [exporter] });
  metrics.setGlobalMeterProvider(provider);
}

/** Off only when asked: Prometheus scrapes are pull-based, so an unscraped process pays only for counting. */
export function metricsEnabled(env: NodeJS.ProcessEnv): boolean {
  return env.OTEL_SDK_DISABLED !== 'true' && env.OTEL_METRICS_EXPORTER !== 'none';
}

/** Serves the Prometheus text format, or 404 when metrics were never started. */
export function serveMetrics(request: IncomingMessage, response: ServerResponse): void {
  if (!exporter) {
    response
      .writeHead(404, { 'content-type': 'application/json' })
      .end(JSON.stringify({ message: 'Metrics are off (OTEL_METRICS_EXPORTER=none)', code: 'not_found' }));
    return;
  }
  exporter.getMetricsRequestHandler(request, response);
}
