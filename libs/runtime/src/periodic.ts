import type { Logger } from '@lode/telemetry';

export interface PeriodicTask {
  /** Runs the task now (or right after the run in progress), without waiting for the interval. */
  kick(): void;
  /** No more runs; resolves when the run in progress has finished. */
  stop(): Promise<void>;
}

/**
 * Runs a background task every intervalMs, never two runs at once. A failed run is logged and the
 * next one tries again, so a database blip does not stop collectors or relays for good.
 */
export function runPeriodically(name: string, intervalMs: number, logger: Logger, task: () => Promise<unknown>): PeriodicTask {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const run = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = task()
      .then(
        () => undefined,
        (error: unknown) => logger.error({ err: error }, `${name} failed`),
      )
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          run();
        }
      });
  };
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return {
    kick: run,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
