import { NodeSDK } from '@opentelemetry/sdk-node';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { serviceName } from './service-name.ts';

let sdk: NodeSDK | undefined;

/** Exporter, sampler and resource come from the standard OTEL_* variables, read by the SDK itself. */
export function startTracing(options: ConstructorParameters<typeof NodeSDK>[0] = {}): NodeSDK {
  sdk = new NodeSDK({
    serviceName: serviceName(),
    instrumentations: [
      new HttpInstrumentation(),
      // Route handlers only: a span per middleware and router layer is noise that costs on every call.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER] }),
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
