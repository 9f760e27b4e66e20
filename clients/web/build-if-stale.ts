/**
 * Builds the dashboard when dist/ is missing or older than any of its sources, so `npm start` (its
 * prestart), the browser tests (libs/testkit's global setup runs it once, before any test worker)
 * and a fresh clone serve the current app with no extra step.
 * Run: node clients/web/build-if-stale.ts
 */
import { statSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { build } from 'vite';

const ROOT = import.meta.dirname;
const SOURCES = ['src', 'index.html', 'vite.config.ts', 'package.json'];

function newestMtime(entry: string): number {
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(entry).map((name) => newestMtime(path.join(entry, name))));
}

function builtAt(): number {
  try {
    return statSync(path.join(ROOT, 'dist', 'index.html')).mtimeMs;
  } catch {
    return 0;
  }
}

/** True when it built. */
async function buildWebIfStale(): Promise<boolean> {
  const sources = Math.max(...SOURCES.map((name) => newestMtime(path.join(ROOT, name))));
  if (builtAt() > sources) return false;
  await build({ configFile: path.join(ROOT, 'vite.config.ts'), logLevel: 'warn' });
  return true;
}

const built = await buildWebIfStale();
console.log(built ? 'web dashboard built (clients/web/dist)' : 'web dashboard is up to date');
