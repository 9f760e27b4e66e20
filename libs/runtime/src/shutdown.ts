import type { Logger } from '@lode/telemetry';
import type { OpsServer } from './ops-server.ts';

export type ShutdownStep = readonly [name: string, run: () => Promise<unknown>];

/**
 * A Ctrl-C under `npm start` reaches Node twice at once: from the terminal (the whole foreground
 * process group) and forwarded by npm. A repeat this soon is that echo, not an operator insisting.
 */
const SIGNAL_ECHO_MS = 1000;

/**
 * On SIGTERM or SIGINT, runs the steps in order (stop taking requests, drain the bus, finish
 * in-flight work, close pools), then exits. A second signal (past its echo), or the grace period
 * running out, exits at once so an orchestrator never waits on a stuck process. With an ops server,
 * /readyz fails before the first step and the server closes after the last, so probes see the whole drain.
 */
export function onShutdown(logger: Logger, steps: readonly ShutdownStep[], options: { ops?: OpsServer; graceMs?: number } = {}): void {
  const { ops, graceMs = 25_000 } = options;
  let stoppingSince: number | undefined;
  const stop = async (signal: string) => {
    if (stoppingSince !== undefined) {
      if (performance.now() - stoppingSince < SIGNAL_ECHO_MS) return;
      logger.warn({ signal }, 'second signal: exiting without finishing the drain');
      process.exit(1);
    }
    stoppingSince = performance.now();
    logger.info({ signal }, 'shutting down');
    ops?.markStopping();
    const deadline = setTimeout(() => {
      logger.error('shutdown grace period exceeded');
      process.exit(1);
    }, graceMs);
    deadline.unref();
    let failed = false;
    for (const [name, run] of steps) {
      try {
        await run();
      } catch (error) {
        failed = true;
        logger.error({ err: error, step: name }, 'shutdown step failed');
      }
    }
    await ops?.close();
    logger.info('stopped');
    process.exit(failed ? 1 : 0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** Logs a fatal start-up error (a ConfigError lists every bad variable) and exits non-zero. */
export function exitOnStartupFailure(logger: Logger) {
  return (error: unknown): never => {
    logger.fatal({ err: error }, error instanceof Error ? error.message : `start-up failed: ${String(error)}`);
    process.exit(1);
  };
}
