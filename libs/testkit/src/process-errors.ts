/**
 * What this process reported as an unhandled rejection or an uncaught exception while a watch was
 * on: either one, outside a test, would have killed a server process (Node's default).
 */
export interface ProcessErrorWatch {
  /** Every reason reported so far. */
  readonly reasons: unknown[];
  /** Resolves with the first reason reported; stays pending while none is. */
  readonly first: Promise<unknown>;
  /**
   * Resolves once Node has reported whatever rejection the work settled so far left unhandled: it
   * does so after the microtasks of the current turn, so a macrotask later every one is in.
   */
  settle(): Promise<void>;
  stop(): void;
}

/** Vitest fails the run on either too; the watch lets a test name the operation that leaked one. */
export function watchProcessErrors(): ProcessErrorWatch {
  const reasons: unknown[] = [];
  let reported: (reason: unknown) => void = () => undefined;
  const first = new Promise<unknown>((resolve) => (reported = resolve));
  const record = (reason: unknown) => {
    reasons.push(reason);
    reported(reason);
  };
  process.on('unhandledRejection', record);
  process.on('uncaughtException', record);
  return {
    reasons,
    first,
    settle: () => new Promise((resolve) => setImmediate(resolve)),
    stop() {
      process.off('unhandledRejection', record);
      process.off('uncaughtException', record);
    },
  };
}
