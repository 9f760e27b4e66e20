#!/usr/bin/env node
// The entry point: only syntax and APIs that any Node able to load an ES module has (no top-level
// await, no optional chaining), so that an older Node prints which Node lode needs instead of failing
// on the first newer API it meets. The minimum is the package's own `engines` field, the one npm's
// engine warning names. Everything else loads from start.js, once the check has passed.
import { readFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const needed = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(manifest.engines.node);
const minimum = [Number(needed[1]), Number(needed[2] || 0), Number(needed[3] || 0)];
const running = process.versions.node.split('.').map(Number);

function older(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
}

if (older(running, minimum)) {
  const message = `lode needs Node.js ${needed[0].replace(/^>=\s*/, '')} or newer; this is Node.js ${process.versions.node} (${process.execPath}). Install a newer Node.js (https://nodejs.org/) and run lode again.`;
  if (process.argv.indexOf('--json') !== -1)
    process.stdout.write(
      `${JSON.stringify({ error: { code: 'unsupported_node', message, required: manifest.engines.node, running: process.versions.node } })}\n`,
    );
  else process.stderr.write(`error: ${message}\n`);
  process.exitCode = 1;
} else {
  import('./start.js');
}
