import { pingContract } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { Database } from '@lode/db';

export const uploadPing = pingContract('upload');

/** Ready means the database answers too, so the gateway's /readyz reflects the whole path. */
export function servePing(bus: Bus, db: Database): void {
  bus.serve(uploadPing, async () => {
    await db.ping();
    return { service: 'upload', ok: true as const };
  });
}
