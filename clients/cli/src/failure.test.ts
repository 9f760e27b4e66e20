import { describe, expect, it } from 'vitest';
import { LodeApiError, LodeNetworkError } from '@lode/sdk';
import { describeLock, refusedInput, toCliError } from './failure.ts';

describe('an unreachable server, as the CLI reports it', () => {
  it('says so with the reason, whether the system gave an errno code or only a message', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:59999'), { code: 'ECONNREFUSED' });
    for (const [cause, reason] of [
      [refused, 'connect ECONNREFUSED 127.0.0.1:59999'],
      [new Error('bad port'), 'bad port'],
    ] as const) {
      const error = toCliError(new LodeNetworkError(cause));
      expect(error).toMatchObject({ code: 'network_error', exitCode: 1 });
      expect(error.message).toBe(
        `Cannot reach the server: ${reason}. Check the URL (lode login) and your network; a push or pull run again goes on from where it stopped.`,
      );
    }
  });

  it('keeps any other error as it is', () => {
    expect(toCliError(new TypeError('x is not a function'))).toMatchObject({ code: 'error', message: 'x is not a function' });
  });
});

describe('API errors the CLI words itself', () => {
  const notLode = (status: number) =>
    new LodeApiError(
      status,
      {
        code: 'not_lode_api',
        message: `No Lode API answers at http://host:8000 (HTTP ${status}, text/html)`,
        url: 'http://host:8000',
        contentType: 'text/html',
      },
      null,
    );

  it('names the URL where no Lode API answers, with the status but never the page, under the code lode login uses', () => {
    const error = toCliError(notLode(501));
    expect(error).toMatchObject({ code: 'not_a_lode_server', exitCode: 1, details: { status: 501, url: 'http://host:8000' } });
    expect(error.message).toBe(
      "No Lode API answers at http://host:8000 (it answered HTTP 501 text/html, not as Lode does). Check the URL: give the server's base URL, the address of its dashboard (e.g. https://lode.example.com).",
    );
  });

  it("adds that a proxy may have lost Lode when the answer was a proxy's 502, 503 or 504", () => {
    expect(toCliError(notLode(502)).message).toContain('a proxy in front of Lode could not reach it');
  });

  it('calls command-line input the server refused a usage error (exit 2), and leaves any other error as it was', () => {
    const refused = new LodeApiError(400, { code: 'validation_failed', message: 'Invalid body: name: must be a branch name' }, null);
    expect(() => refusedInput(refused)).toThrow(
      expect.objectContaining({ code: 'validation_failed', exitCode: 2, message: 'Invalid body: name: must be a branch name (validation_failed)' }),
    );
    const locked = new LodeApiError(409, { code: 'file_locked', message: 'locked' }, null);
    expect(() => refusedInput(locked)).toThrow(locked);
    expect(toCliError(refused)).toMatchObject({ exitCode: 1 });
  });

  it('tells a CI job whose key is bound to another device to set LODE_DEVICE', () => {
    const error = toCliError(new LodeApiError(403, { code: 'device_mismatch', message: 'API key is bound to another device' }, null));
    expect(error).toMatchObject({ code: 'device_mismatch', exitCode: 1 });
    expect(error.message).toBe(
      "API key is bound to another device (the first one that used it). Set LODE_DEVICE to that device's id (CI jobs must set LODE_DEVICE along with LODE_KEY), or use a key of this machine's own, or ask an operator to reset the key's device.",
    );
  });
});

describe('authentication the gateway throttles (429 too_many_failed_attempts)', () => {
  const throttled = (per: 'address' | 'key') =>
    toCliError(
      new LodeApiError(
        429,
        { code: 'too_many_failed_attempts', message: 'Too many failed authentication attempts; retry later', per, retryAfterSeconds: 6 },
        'req-1',
      ),
    );

  it('says whose failures are throttled, how long to wait and what to check, keeping the code and body for --json', () => {
    const address = throttled('address');
    expect(address).toMatchObject({ code: 'too_many_failed_attempts', exitCode: 1, details: { per: 'address', retryAfterSeconds: 6, status: 429 } });
    expect(address.message).toBe(
      'Too many failed authentications from this network address: the server refuses to check keys from it for the next 6 s. Wait, then check the key this machine uses (`lode login --url URL --key KEY`, or LODE_KEY): a wrong or revoked key that a program on this network keeps sending holds the address back.',
    );
    expect(throttled('key').message).toBe(
      'Too many failed authentications with this key: the server refuses to check it for the next 6 s. The key is wrong, revoked or bound to another device: log in with a valid key (`lode login --url URL --key KEY`), or set LODE_DEVICE to the device the key was first used on.',
    );
  });
});

describe('a lock as the CLI names it', () => {
  it('gives the holder, the time and the note, when the lock has one', () => {
    const lock = { path: 'Levels/Castle.umap', userName: 'Bo', lockedAt: '2025-01-02T03:04:05Z' };
    expect(describeLock({ ...lock, note: 'lighting pass' })).toBe('Levels/Castle.umap is locked by Bo since 2025-01-02T03:04:05Z: "lighting pass"');
    expect(describeLock({ ...lock, note: '' })).toBe('Levels/Castle.umap is locked by Bo since 2025-01-02T03:04:05Z');
  });
});

describe("a commit refused for teammates' locks (409 file_locked)", () => {
  it('names each locked file with its holder, the time and their note, then says what to do (exit 3)', () => {
    const lockedFiles = [
      { fileId: 'f1', path: 'Levels/Castle.umap', userId: 'u1', userName: 'Bo', note: 'lighting pass', lockedAt: '2025-01-02T03:04:05Z' },
      { fileId: 'f2', path: 'Levels/Moat.umap', userId: 'u1', userName: 'Bo', note: '', lockedAt: '2025-01-02T03:04:06Z' },
    ];
    const error = toCliError(new LodeApiError(409, { code: 'file_locked', message: '2 file(s) in this commit are locked by another user', lockedFiles }, null));
    expect(error).toMatchObject({ code: 'file_locked', exitCode: 3, details: { lockedFiles, status: 409 } });
    expect(error.message).toBe(
      'Nothing was committed: 2 files locked by teammates:\n' +
        '  Levels/Castle.umap is locked by Bo since 2025-01-02T03:04:05Z: "lighting pass"\n' +
        '  Levels/Moat.umap is locked by Bo since 2025-01-02T03:04:06Z\n' +
        'Ask them to commit or unlock the files (an org owner or admin can run `lode unlock --force PATH`), then run the command again.',
    );
  });
});
