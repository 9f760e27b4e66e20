import { Router, type RequestHandler } from 'express';
import { forPaths } from '../http/route-paths.ts';
import { pingContract } from '@lode/contracts';
import type { Bus } from '@lode/bus';

export interface ReadinessChecks {
  bus: Bus;
  /** Services whose ping must answer for the gateway to take traffic. */
  services: readonly string[];
  stopping?: () => boolean;
}

/** /healthz: the process is alive. /readyz: the bus and every service answer. */
export function healthRoutes(checks: ReadinessChecks): RequestHandler {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    if (checks.stopping?.()) {
      res.status(503).json({ status: 'stopping' });
      return;
    }
    const probes: Record<string, () => Promise<unknown>> = {
      ...Object.fromEntries(checks.services.map((s) => [s, () => checks.bus.call(pingContract(s), {}, { timeoutMs: 2000 })])),
    };
    const results = await Promise.all(
      Object.entries(probes).map(async ([name, probe]) => {
        try {
          await probe();
          return [name, 'ok'] as const;
        } catch (error) {
          return [name, (error as Error).message] as const;
        }
      }),
    );
    const ready = results.every(([, status]) => status === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(results) });
  });
  return forPaths(['/healthz', '/readyz'], router);
}
