#!/usr/bin/env node
// Installed from its tarball the package holds dist/ (built by `npm run tarballs`, src/pack.ts) and
// no sources. In the repository, Node 24 runs the TypeScript sources directly, and @lode/sdk
// resolves to its sources too (its `development` export), so `npx lode` needs no build.
import { existsSync } from 'node:fs';
import module from 'node:module';

// Before anything loads: the modules' compiled code (and, run from sources, their stripped types)
// is kept on disk and reused by the next run, which cut `lode --version` from 0.23 to 0.10 s of CPU.
// NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache();

const source = new URL('../src/main.ts', import.meta.url);
if (existsSync(source) && process.features.typescript && module.registerHooks) {
  module.registerHooks({
    resolve: (specifier, context, next) =>
      next(specifier, specifier === '@lode/sdk' ? { ...context, conditions: [...context.conditions, 'development'] } : context),
  });
  await import(source.href);
} else {
  await import('../dist/main.js');
}
