import { untilAllReady, type ServiceProcess } from '@lode/testkit';
import { STARTUP_WAIT_MS } from './deadlines.ts';

const POLL_MS = 250;
/** Lines of a crashed process's output kept in the report: enough for Node's account of an unhandled error. */
const LAST_WORDS_LINES = 80;

/**
 * The orchestrator's part, as Kubernetes plays it: a process the suite kills is started again when
 * the scenario heals it, and one that exits on its own is a crash, recorded for the scenario it
 * happened in and started again at once, so one crash does not fail every later scenario.
 */
export class Supervisor {
  /** What it watches: the system's processes at the time of asking (a scenario may add a replica). */
  readonly #processes: () => readonly ServiceProcess[];
  /** Killed by the running scenario: down on purpose until it heals them. */
  readonly #heldDown = new Set<ServiceProcess>();
  #crashes: string[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(processes: () => readonly ServiceProcess[]) {
    this.#processes = processes;
  }

  start(): void {
    this.#timer = setInterval(() => this.#restartCrashed(), POLL_MS);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** SIGKILLs them as the scenario's fault: not crashes. */
  async kill(processes: readonly ServiceProcess[]): Promise<void> {
    for (const p of processes) this.#heldDown.add(p);
    await Promise.all(processes.map((p) => p.kill()));
  }

  /** Starts them again and resolves once each answers its own /readyz, as a restart and a readiness probe would. */
  async restart(processes: readonly ServiceProcess[]): Promise<void> {
    for (const p of processes) {
      this.#heldDown.delete(p);
      if (!p.running()) p.restart();
    }
    await untilAllReady(processes, { timeoutMs: STARTUP_WAIT_MS, restarts: 0 });
  }

  /** The crashes since the last call, each with the process's last words. */
  takeCrashes(): string[] {
    this.#restartCrashed();
    return this.#crashes.splice(0);
  }

  #restartCrashed(): void {
    for (const p of this.#processes()) {
      if (p.running() || this.#heldDown.has(p)) continue;
      const lastWords = p.output().trimEnd().split('\n').slice(-LAST_WORDS_LINES).join('\n');
      this.#crashes.push(`${p.name} (${p.opsUrl}) exited unasked (restarted); its last output:\n${lastWords}`);
      p.restart();
    }
  }
}
