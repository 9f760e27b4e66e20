import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TransferProgress } from './progress.ts';

describe('plain progress lines (stderr not a terminal)', () => {
  const tty = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
  beforeEach(() => {
    Object.defineProperty(process.stderr, 'isTTY', { value: false, configurable: true });
  });
  afterEach(() => {
    if (tty) Object.defineProperty(process.stderr, 'isTTY', tty);
    else delete (process.stderr as { isTTY?: boolean }).isTTY;
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('says what will move, then a line every five seconds, none at the first byte', () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const progress = new TransferProgress('push', 3, 3 * 1024 * 1024, false);
    progress.update({ files: 0, bytes: 6 });
    progress.update({ files: 1, bytes: 1024 * 1024 });
    expect(lines).toEqual(['push: 3 files, 3.0 MiB\n']);
    vi.advanceTimersByTime(5001);
    progress.update({ files: 1, bytes: 1024 * 1024 });
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^push: 2 files, 2\.0 MiB of 3\.0 MiB \(.+\/s\)\n$/)]);
    progress.update({ files: 0, bytes: 1 });
    expect(lines).toHaveLength(2);
    progress.stop();
  });

  it('prints nothing when quiet (--json)', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const progress = new TransferProgress('pull', 1, 10, true);
    progress.update({ files: 1, bytes: 10 });
    progress.stop();
    expect(write).not.toHaveBeenCalled();
  });
});
