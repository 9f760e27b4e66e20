import { SingleBar, Presets } from 'cli-progress';
import type { FlowProgress } from '@lode/sdk';
import { formatBytes } from './output.ts';

const PLAIN_LINE_EVERY_MS = 5000;

/** Files and bytes moved, with rate and ETA: a bar on a terminal, a plain line every few seconds otherwise, nothing with `--json`. */
export class TransferProgress {
  readonly #label: string;
  readonly #totalBytes: number;
  readonly #bar: SingleBar | undefined;
  readonly #plain: boolean;
  readonly #started = Date.now();
  #files = 0;
  #bytes = 0;
  /** The first plain line comes a full interval in: one at the first byte would say nothing but "0 files". */
  #lastLine = this.#started;

  constructor(label: string, totalFiles: number, totalBytes: number, quiet: boolean) {
    this.#label = label;
    this.#totalBytes = totalBytes;
    const tty = Boolean(process.stderr.isTTY);
    this.#plain = !quiet && !tty;
    if (!quiet && tty) {
      this.#bar = new SingleBar(
        {
          format: `${label} {bar} {percentage}% | {value}/{total} files | {moved}/{size} | {rate}/s | ETA {eta_formatted}`,
          stream: process.stderr,
          hideCursor: true,
          etaBuffer: 50,
        },
        Presets.shades_classic,
      );
      this.#bar.start(totalFiles, 0, this.#payload());
    }
    if (this.#plain) process.stderr.write(`${label}: ${totalFiles} files, ${formatBytes(totalBytes)}\n`);
  }

  /** The flows' progress callback. */
  readonly update = (progress: FlowProgress): void => {
    this.#files += progress.files;
    this.#bytes += progress.bytes;
    this.#bar?.update(this.#files, this.#payload());
    if (this.#plain && Date.now() - this.#lastLine > PLAIN_LINE_EVERY_MS) {
      this.#lastLine = Date.now();
      process.stderr.write(`${this.#label}: ${this.#files} files, ${formatBytes(this.#bytes)} of ${formatBytes(this.#totalBytes)} (${this.#payload().rate}/s)\n`);
    }
  };

  stop(): void {
    this.#bar?.stop();
  }

  #payload() {
    const seconds = Math.max((Date.now() - this.#started) / 1000, 0.001);
    return { moved: formatBytes(this.#bytes), size: formatBytes(this.#totalBytes), rate: formatBytes(this.#bytes / seconds) };
  }
}
