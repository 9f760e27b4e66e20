/**
 * The image's entry point: SERVICE picks the process. The service's main runs in this same Node
 * process (node is PID 1, started without a shell), so SIGTERM reaches its shutdown handler directly.
 */
import { entryOf, IMAGE_SERVICES, isImageService } from './services.ts';

const service = process.env.SERVICE;
if (!isImageService(service)) {
  const given = service === undefined ? 'it is not set' : `got ${JSON.stringify(service)}`;
  process.stderr.write(`SERVICE must be one of ${IMAGE_SERVICES.join(', ')}; ${given}\n`);
  process.exit(1);
}
await import(entryOf(service));
