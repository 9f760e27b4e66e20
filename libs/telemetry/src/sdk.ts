import { NodeSDK } from '@opentelemetry/sdk-node';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';

let sdk: NodeSDK | undefined;

/** Exporter, sampler and resource come from the standard OTEL_* variables, read by the SDK itself. */
export function startTracing(options: ConstructorParameters<typeof NodeSDK>[0] = {}): NodeSDK {
  sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? `lode-${process.env.SERVICE ?? 'embedded'}`,
    instrumentations: [
      new HttpInstrumentation(),
      new ExpressInstrumentation(),
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
    ...options,
  });
  sdk.start();
  return sdk;
}

export async function stopTracing(): Promise<void> {
  await sdk?.shutdown();
  sdk = undefined;
}
