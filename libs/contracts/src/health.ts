import { z } from 'zod';
import { defineContract } from './contract.ts';

/** Every service answers its ping, so the gateway's /readyz can tell that each one is reachable. */
export function pingContract(service: string) {
  return defineContract(service, 'ping', z.object({}), z.object({ service: z.string(), ok: z.literal(true) }));
}
