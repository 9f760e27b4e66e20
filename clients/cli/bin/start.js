// Loaded by lode.js once the Node version is checked. Installed from its tarball the package holds
// dist/ (built by `npm run tarballs`, src/pack.ts) and no sources. In the repository, Node 24 runs the TypeScript sources directly, and @lode/sdk
// resolves to its sources too (its `development` export), so `npx lode` needs no build.
import { existsSync } from 'node:fs';
import module from 'node:module';

// Before anything loads: the modules' compiled code (and, run from sources, their stripped types)
// is kept on disk and reused by the next run, which then compiles only what changed.
// NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache();

const source = new URL('../src/main.ts', import.meta.url);
const dist = new URL('../dist/main.js', import.meta.url);
if (existsSync(source) && process.features.typescript && module.registerHooks) {
  module.registerHooks({
    resolve: (specifier, context, next) =>
      next(specifier, specifier === '@lode/sdk' ? { ...context, conditions: [...context.conditions, 'development'] } : context),
  });
  await import(source.href);
} else if (existsSync(dist)) {
  await import(dist.href);
} else {
  // A checkout run by a Node that cannot strip types: the repository's own Node runs it (`npx lode`).
  process.stderr.write(
    `error: lode run from the repository's sources needs Node.js 24 (which runs TypeScript); this is Node.js ${process.versions.node}. Run it as \`npx lode\`, which uses the Node.js that \`npm ci\` installed.\n`,
  );
  process.exitCode = 1;
}
