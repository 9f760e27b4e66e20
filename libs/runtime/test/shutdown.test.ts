import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, spawnService, untilProcessShows, untilReady, type ServiceProcess } from '@lode/testkit';

describe('onShutdown in a real process', () => {
  const started: ServiceProcess[] = [];
  let dir: string;
  afterEach(async () => {
    await Promise.all(started.splice(0).map((p) => p.kill()));
    await rm(dir, { recursive: true, force: true });
  });

  async function draining() {
    dir = await mkdtemp(path.join(tmpdir(), 'lode-shutdown-'));
    const release = path.join(dir, 'release');
    const proc = spawnService(
      'draining-process',
      { LODE_OPS_PORT: String(await freePort()), FIXTURE_RELEASE: release, LOG_LEVEL: 'info' },
      path.join(import.meta.dirname, 'fixtures/draining-process.ts'),
    );
    started.push(proc);
    await untilReady(proc, { restarts: 0 });
    const exited = new Promise<number | null>((resolve) => proc.child.once('exit', (code) => resolve(code)));
    return { proc, exited, release: () => writeFile(release, '') };
  }

  it("finishes the drain when Ctrl-C arrives twice at once (the terminal's and npm's forward of it)", async () => {
    const { proc, exited, release } = await draining();
    proc.child.kill('SIGINT');
    proc.child.kill('SIGINT');
    await untilProcessShows(proc, () => proc.output().includes('"msg":"draining"'), 'the drain');
    await release();
    expect(await exited).toBe(0);
    expect(proc.output()).toContain('"msg":"stopped"');
  });

  it('exits at once, without finishing the drain, on a second signal sent later', async () => {
    const { proc, exited } = await draining();
    proc.child.kill('SIGTERM');
    await untilProcessShows(proc, () => proc.output().includes('"msg":"draining"'), 'the drain');
    await sleep(1500);
    proc.child.kill('SIGTERM');
    expect(await exited).toBe(1);
    expect(proc.output()).not.toContain('"msg":"stopped"');
  });
});
