import { SingleBar, Presets } from 'cli-progress';
import type { FlowProgress } from '@lode/sdk';
import { formatBytes, plural } from './output.ts';

const PLAIN_LINE_EVERY_MS = 5000;

/**
 * A transfer rate that settles: an exponential moving average of the rate measured over each
 * interval of at least `sampleMs`, each interval weighing by its length (time constant `tauMs`).
 * Pieces arrive in bursts (1 MiB at a time, 16 transfers in flight) and files finish in clumps, so
 * the raw rate, and an ETA computed from it, jump about; averaged this way, a burst moves the rate a
 * little and a lasting change of speed moves it all the way within a few time constants.
 */
export class SmoothedRate {
  readonly #tauMs: number;
  readonly #sampleMs: number;
  #since: number;
  #pending = 0;
  #rate: number | undefined;

  constructor(start: number, options: { tauMs?: number; sampleMs?: number } = {}) {
    this.#since = start;
    this.#tauMs = options.tauMs ?? 5000;
    this.#sampleMs = options.sampleMs ?? 500;
  }

  add(bytes: number, now: number): void {
    this.#pending += bytes;
    const elapsed = now - this.#since;
    if (elapsed < this.#sampleMs) return;
    const measured = Math.max(this.#pending, 0) / (elapsed / 1000);
    // The first sample is all there is to go on; later ones pull the average by their share of tau.
    this.#rate = this.#rate === undefined ? measured : this.#rate + (1 - Math.exp(-elapsed / this.#tauMs)) * (measured - this.#rate);
    this.#since = now;
    this.#pending = 0;
  }

  /** Bytes per second; undefined until a first interval has passed. */
  get bytesPerSecond(): number | undefined {
    return this.#rate;
  }
}

/** "42s", "4m 05s", "1h 02m": how long `bytes` take at `rate`, or "…" while no rate is known. */
export function eta(bytes: number, rate: number | undefined): string {
  if (bytes <= 0) return '0s';
  if (!rate) return '…';
  const seconds = Math.ceil(bytes / rate);
  const pad = (n: number) => String(n).padStart(2, '0');
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${pad(seconds % 60)}s`;
  return `${Math.floor(seconds / 3600)}h ${pad(Math.floor(seconds / 60) % 60)}m`;
}

/**
 * Bytes moved against the bytes to move, as they stream (the percentage and the ETA count bytes, not
 * finished files, so that one large file shows progress), with files finished (and parts, when
 * files move in parts: those a resumed transfer found done count at once), a smoothed rate and an
 * ETA: a bar on a terminal, a plain line every few seconds otherwise, nothing with `--json`.
 */
export class TransferProgress {
  readonly #label: string;
  readonly #totalFiles: number;
  readonly #totalBytes: number;
  readonly #totalParts: number;
  readonly #bar: SingleBar | undefined;
  readonly #plain: boolean;
  readonly #rate: SmoothedRate;
  #files = 0;
  #bytes = 0;
  #parts = 0;
  /** The first plain line comes a full interval in: one at the first byte would say nothing but "0 files". */
  #lastLine: number;

  constructor(label: string, totalFiles: number, totalBytes: number, quiet: boolean, totalParts = 0) {
    this.#label = label;
    this.#totalFiles = totalFiles;
    this.#totalBytes = totalBytes;
    this.#totalParts = totalParts;
    this.#rate = new SmoothedRate(Date.now());
    this.#lastLine = Date.now();
    const tty = Boolean(process.stderr.isTTY);
    this.#plain = !quiet && !tty;
    if (!quiet && tty) {
      this.#bar = new SingleBar(
        { format: `${label} {bar} {percentage}% | {moved}/{size} | {files} | {rate}/s | ETA {remaining}`, stream: process.stderr, hideCursor: true },
        Presets.shades_classic,
      );
      this.#bar.start(totalBytes, 0, this.#payload());
    }
    if (this.#plain)
      process.stderr.write(`${label}: ${plural(totalFiles, 'file')}, ${formatBytes(totalBytes)}${totalParts > 0 ? ` in ${plural(totalParts, 'part')}` : ''}\n`);
  }

  /** The flows' progress callback. */
  readonly update = (progress: FlowProgress): void => {
    const now = Date.now();
    this.#files += progress.files;
    this.#bytes += progress.bytes;
    this.#parts += progress.parts ?? 0;
    this.#rate.add(progress.bytes, now);
    this.#bar?.update(this.#bytes, this.#payload());
    if (this.#plain && now - this.#lastLine > PLAIN_LINE_EVERY_MS) {
      this.#lastLine = now;
      const p = this.#payload();
      process.stderr.write(`${this.#label}: ${this.#percentage()}% (${p.moved} of ${p.size}), ${p.files}, ${p.rate}/s, ETA ${p.remaining}\n`);
    }
  };

  stop(): void {
    this.#bar?.stop();
  }

  #percentage(): number {
    return this.#totalBytes === 0 ? 100 : Math.floor((Math.max(this.#bytes, 0) / this.#totalBytes) * 100);
  }

  #payload() {
    const rate = this.#rate.bytesPerSecond;
    return {
      moved: formatBytes(this.#bytes),
      size: formatBytes(this.#totalBytes),
      files: `${this.#files} of ${plural(this.#totalFiles, 'file')}${this.#totalParts > 0 ? `, ${this.#parts} of ${plural(this.#totalParts, 'part')}` : ''}`,
      rate: rate === undefined ? '…' : formatBytes(rate),
      remaining: eta(this.#totalBytes - this.#bytes, rate),
    };
  }
}
