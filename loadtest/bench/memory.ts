import { readFile } from 'node:fs/promises';

/** Resident memory of a process now (VmRSS), in bytes. */
export async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb) * 1024;
}

export interface MemoryWatch {
  /** Stops sampling; per process: RSS before, the highest sample during, RSS after. */
  stop(): Promise<{ name: string; before: number; peak: number; after: number }[]>;
}

/** Samples the processes' RSS every `everyMs` until stopped (peaks shorter than that can be missed). */
export async function watchRss(processes: readonly { name: string; pid: number }[], everyMs = 20): Promise<MemoryWatch> {
  const before = await Promise.all(processes.map((p) => rssBytes(p.pid)));
  const peak = [...before];
  let sampling = Promise.resolve();
  const timer = setInterval(() => {
    sampling = sampling.then(async () => {
      const now = await Promise.all(processes.map((p) => rssBytes(p.pid)));
      now.forEach((rss, i) => (peak[i] = Math.max(peak[i], rss)));
    });
  }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await sampling;
      const after = await Promise.all(processes.map((p) => rssBytes(p.pid)));
      return processes.map((p, i) => ({ name: p.name, before: before[i], peak: Math.max(peak[i], after[i]), after: after[i] }));
    },
  };
}
