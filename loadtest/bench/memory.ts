import { readFile } from 'node:fs/promises';

/** Resident memory of a process now (VmRSS), in bytes. */
export async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb) * 1024;
}

/** One process's resident memory over a watch: before, the highest sample, after, and the highest of each phase. */
export interface ProcessMemory {
  name: string;
  before: number;
  peak: number;
  after: number;
  phases: number[];
}

export interface MemoryWatch {
  /** Ends a phase: its peaks are kept apart from the next phase's. */
  mark(): void;
  /**
   * Stops sampling; per process: RSS before, the highest sample during, RSS after, and the highest
   * sample of each phase (one more than mark() was called), to tell which step a peak belongs to.
   */
  stop(): Promise<ProcessMemory[]>;
}

/** Samples the processes' RSS every `everyMs` until stopped (peaks shorter than that can be missed). */
export async function watchRss(processes: readonly { name: string; pid: number }[], everyMs = 20): Promise<MemoryWatch> {
  const before = await Promise.all(processes.map((p) => rssBytes(p.pid)));
  const phases = [[...before]];
  let sampling = Promise.resolve();
  const timer = setInterval(() => {
    sampling = sampling.then(async () => {
      const now = await Promise.all(processes.map((p) => rssBytes(p.pid)));
      const peak = phases[phases.length - 1];
      now.forEach((rss, i) => (peak[i] = Math.max(peak[i], rss)));
    });
  }, everyMs);
  return {
    mark() {
      phases.push(processes.map(() => 0));
    },
    async stop() {
      clearInterval(timer);
      await sampling;
      const after = await Promise.all(processes.map((p) => rssBytes(p.pid)));
      phases[phases.length - 1] = phases[phases.length - 1].map((peak, i) => Math.max(peak, after[i]));
      return processes.map((p, i) => ({
        name: p.name,
        before: before[i],
        peak: Math.max(...phases.map((phase) => phase[i])),
        after: after[i],
        phases: phases.map((phase) => phase[i]),
      }));
    },
  };
}
