import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLocalObjectHandler, LocalBlobStorage } from '../src/index.ts';

/** A local driver in a fresh directory, its URLs answered by its handler on a server of its own. */
export async function servedLocalStorage(prefix: string): Promise<{ storage: LocalBlobStorage; dir: string; close: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const storage = new LocalBlobStorage({ dir, secret: 's'.repeat(40), publicUrl: `http://127.0.0.1:${port}` });
  await storage.ensureReady();
  const handle = createLocalObjectHandler(storage);
  server.on('request', (req, res) => void handle(req, res));
  return {
    storage,
    dir,
    close: async () => {
      server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
