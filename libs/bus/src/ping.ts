import { pingContract } from '@lode/contracts';
import type { Bus } from './bus.ts';

/**
 * Answers the service's ping once `check` (its database, say) succeeds, so the gateway's /readyz
 * reflects the whole path and not just a live process.
 */
export function servePing(bus: Bus, service: string, check: () => Promise<void>): void {
  bus.serve(pingContract(service), async () => {
    await check();
    return { service, ok: true as const };
  });
}
