import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { eta, SmoothedRate, TransferProgress } from './progress.ts';

const bars = vi.hoisted(() => [] as { start: unknown[]; updates: unknown[][] }[]);
vi.mock('cli-progress', () => ({
  Presets: { shades_classic: {} },
  SingleBar: class {
    readonly calls = { start: [] as unknown[], updates: [] as unknown[][] };
    constructor() {
      bars.push(this.calls);
    }
    start(...args: unknown[]) {
      this.calls.start = args;
    }
    update(...args: unknown[]) {
      this.calls.updates.push(args);
    }
    stop() {}
  },
}));

const MiB = 1024 * 1024;

/** Runs `body` with stderr as a terminal or not, collecting what is written to it. */
function onStderr(tty: boolean) {
  const saved = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
  const lines: string[] = [];
  beforeEach(() => {
    Object.defineProperty(process.stderr, 'isTTY', { value: tty, configurable: true });
    lines.length = 0;
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
  });
  afterEach(() => {
    if (saved) Object.defineProperty(process.stderr, 'isTTY', saved);
    else delete (process.stderr as { isTTY?: boolean }).isTTY;
    vi.useRealTimers();
    vi.restoreAllMocks();
  });
  return lines;
}

describe('plain progress lines (stderr not a terminal)', () => {
  const lines = onStderr(false);

  it('says what will move, then a line every five seconds counting the bytes sent, none at the first byte', () => {
    vi.useFakeTimers();
    const progress = new TransferProgress('push', 3, 3 * MiB, false);
    progress.update({ files: 0, bytes: 6 });
    progress.update({ files: 0, bytes: MiB - 6 });
    expect(lines).toEqual(['push: 3 files, 3.0 MiB\n']);
    vi.advanceTimersByTime(5001);
    // A third of the bytes are sent and no file is confirmed yet: 33 %, not 0 %.
    progress.update({ files: 0, bytes: 0 });
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^push: 33% \(1\.0 MiB of 3\.0 MiB\), 0 of 3 files, .+\/s, ETA \d+s\n$/)]);
    progress.update({ files: 1, bytes: 1 });
    expect(lines).toHaveLength(2);
    progress.stop();
  });

  it('says "1 file", not "1 files"', () => {
    new TransferProgress('pull', 1, 10, false).stop();
    expect(lines).toEqual(['pull: 1 file, 10 B\n']);
  });

  it('prints nothing when quiet (--json)', () => {
    const progress = new TransferProgress('pull', 1, 10, true);
    progress.update({ files: 1, bytes: 10 });
    progress.stop();
    expect(lines).toEqual([]);
  });
});

describe('the progress bar on a terminal', () => {
  onStderr(true);

  it('moves with the bytes as they stream, not with confirmed files, and names the files finished apart', () => {
    bars.length = 0;
    const progress = new TransferProgress('push', 2, 543 * MiB, false);
    progress.update({ files: 0, bytes: 350 * MiB });
    progress.update({ files: 1, bytes: 0 });
    progress.stop();
    const [bar] = bars;
    expect(bar.start.slice(0, 2)).toEqual([543 * MiB, 0]);
    expect(bar.updates.map(([value]) => value)).toEqual([350 * MiB, 350 * MiB]);
    expect(bar.updates[1][1]).toMatchObject({ moved: '350.0 MiB', size: '543.0 MiB', files: '1 of 2 files' });
  });
});

describe('progress of files moved in parts', () => {
  const lines = onStderr(false);

  it('counts parts finished beside files, those a resumed transfer found done at once', () => {
    vi.useFakeTimers();
    const progress = new TransferProgress('push', 2, 80 * MiB, false, 4);
    expect(lines).toEqual(['push: 2 files, 80.0 MiB in 4 parts\n']);
    // A resumed upload: two parts the store held already, then one PUT now.
    progress.update({ files: 0, bytes: 32 * MiB, parts: 2 });
    progress.update({ files: 0, bytes: 16 * MiB, parts: 1 });
    vi.advanceTimersByTime(5001);
    progress.update({ files: 0, bytes: 0 });
    expect(lines[1]).toMatch(/^push: 60% \(48\.0 MiB of 80\.0 MiB\), 0 of 2 files, 3 of 4 parts, /);
    progress.stop();
  });
});

describe('a smoothed rate and the ETA from it', () => {
  it('settles on a steady rate, and a burst moves it a little rather than all the way', () => {
    const rate = new SmoothedRate(0, { tauMs: 5000, sampleMs: 500 });
    expect(rate.bytesPerSecond).toBeUndefined();
    // 1 MiB every 250 ms for 20 s: 4 MiB/s.
    for (let t = 250; t <= 20_000; t += 250) rate.add(MiB, t);
    expect(rate.bytesPerSecond).toBeCloseTo(4 * MiB, -3);
    // Sixteen transfers finishing their pieces at once: 16 MiB in one half second (32 MiB/s measured).
    rate.add(16 * MiB, 20_500);
    expect(rate.bytesPerSecond).toBeGreaterThan(4 * MiB);
    expect(rate.bytesPerSecond).toBeLessThan(8 * MiB);
    // A lasting stall is followed within a few time constants.
    for (let t = 21_000; t <= 60_000; t += 500) rate.add(0, t);
    expect(rate.bytesPerSecond).toBeLessThan(0.1 * MiB);
  });

  it('reads as seconds, minutes or hours, "…" before any rate is known', () => {
    expect(eta(10 * MiB, undefined)).toBe('…');
    expect(eta(42 * MiB, MiB)).toBe('42s');
    expect(eta(245 * MiB, MiB)).toBe('4m 05s');
    expect(eta(3720 * MiB, MiB)).toBe('1h 02m');
    expect(eta(0, undefined)).toBe('0s');
  });
});
