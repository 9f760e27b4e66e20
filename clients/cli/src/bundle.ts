// Not part of the CLI (its bundle holds what src/main.ts imports): the CLI as users install it, one
// ES module (pack.ts packs it; the benchmarks run it as users do).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { rolldown } from 'rolldown';

const CLI = path.resolve(import.meta.dirname, '..');
const SDK = path.resolve(CLI, '../sdk');

/**
 * The CLI's sources, the SDK's and their dependencies' in one ES module at `file`, for the Node the
 * CLI's `engines` names; answers the bundled third-party packages' folders.
 */
export async function bundleCli(file: string): Promise<string[]> {
  const bundle = await rolldown({
    input: path.join(CLI, 'src/main.ts'),
    platform: 'node',
    resolve: { alias: { '@lode/sdk': path.join(SDK, 'src/index.ts') } },
    external: [/^node:/],
    transform: { target: 'node22.12' },
  });
  try {
    const { output } = await bundle.write({ file, format: 'esm' });
    const ids = output.flatMap((piece) => (piece.type === 'chunk' ? piece.moduleIds : []));
    const packages = ids.map((id) => /^(.*[/\\]node_modules[/\\](?:@[^/\\]+[/\\])?[^/\\]+)/.exec(id)?.[1]).filter((dir) => dir !== undefined);
    return [...new Set(packages)].sort();
  } finally {
    await bundle.close();
  }
}

/** Each bundled package's name, version and licence text, as its licence asks copies to carry. */
export async function thirdPartyNotices(packages: readonly string[]): Promise<string> {
  const notices = await Promise.all(
    packages.map(async (dir) => {
      const { name, version, license } = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as {
        name: string;
        version: string;
        license?: string;
      };
      const file = (await readdir(dir)).find((entry) => /^licen[cs]e/i.test(entry));
      if (!file) throw new Error(`${name} has no licence file to carry`);
      return `${name}@${version} (${String(license)})\n\n${(await readFile(path.join(dir, file), 'utf8')).trim()}\n`;
    }),
  );
  return `lode bundles these packages in dist/main.js.\n\n${notices.join(`\n${'-'.repeat(72)}\n\n`)}`;
}
