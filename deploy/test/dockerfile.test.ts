import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { DockerfileParser, type Dockerfile } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';
import dockerignore from '@balena/dockerignore';
import { entryOf, IMAGE_SERVICES } from '../services.ts';
import { REPO_ROOT } from './repo.ts';

const DOCKERFILE = path.join(REPO_ROOT, 'deploy/Dockerfile');
/** How the image starts every process (deploy/README.md): telemetry first, then the entry point. */
const ENTRYPOINT = ['node', '--import', './libs/telemetry/src/register.ts', 'deploy/entrypoint.ts'];

// The package's typings declare an ES default export; at run time the CommonJS factory is the module.
const createIgnore = dockerignore as unknown as (typeof dockerignore)['default'];

interface Copy {
  from?: string;
  sources: string[];
  destination: string;
}

/** The COPY instructions of the whole file, or of one build stage (from its FROM to the next). */
function copies(dockerfile: Dockerfile, stage?: string): Copy[] {
  const froms = dockerfile.getFROMs();
  const index = froms.findIndex((from) => from.getBuildStage() === stage);
  const first = stage === undefined ? 0 : froms[index].getRange().start.line;
  const next = stage === undefined ? Infinity : (froms[index + 1]?.getRange().start.line ?? Infinity);
  const inStage = dockerfile.getCOPYs().filter((copy) => copy.getRange().start.line > first && copy.getRange().start.line < next);
  return inStage.map((copy) => {
    const args = copy.getArguments().map((a) => a.getValue());
    return { from: copy.getFromFlag()?.getValue() ?? undefined, sources: args.slice(0, -1), destination: args[args.length - 1] };
  });
}

/** True when copying `source` brings `file` (the file itself or a directory holding it). */
const brings = (source: string, file: string) => file === source || file.startsWith(`${source}/`);

/** The workspace directories the lock file records, which npm ci checks the tree against. */
function lockedWorkspaces(): string[] {
  const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8'));
  return Object.keys(lock.packages).filter((p) => p && !p.startsWith('node_modules/') && !p.includes('/node_modules/'));
}

/** A tsconfig and every file its `extends` chain reads, relative to the repository root. */
function tsconfigChain(file: string): string[] {
  const { extends: parent } = JSON.parse(readFileSync(path.join(REPO_ROOT, file), 'utf8')) as { extends?: string };
  return parent ? [file, ...tsconfigChain(path.join(path.dirname(file), parent))] : [file];
}

describe('deploy/Dockerfile', () => {
  let text: string;
  let dockerfile: Dockerfile;
  let ignored: (p: string) => boolean;
  beforeAll(() => {
    text = readFileSync(DOCKERFILE, 'utf8');
    dockerfile = DockerfileParser.parse(text);
    const ignore = createIgnore().add(readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n'));
    ignored = (p) => ignore.ignores(p);
  });

  it('passes the dockerfile-utils linter with no problem at all', () => {
    expect(validate(text).map((d) => ({ line: d.range.start.line + 1, message: d.message }))).toEqual([]);
  });

  it('copies from the build context only paths that exist and that .dockerignore keeps', () => {
    const fromContext = copies(dockerfile).filter((c) => !c.from);
    expect(fromContext.length).toBeGreaterThan(0);
    for (const source of fromContext.flatMap((c) => c.sources)) {
      expect(existsSync(path.join(REPO_ROOT, source)), `${source} exists`).toBe(true);
      expect(ignored(source), `${source} is excluded by .dockerignore`).toBe(false);
    }
  });

  it('copies from stages defined before the copy', () => {
    const stages = dockerfile.getFROMs().map((from) => from.getBuildStage());
    for (const copy of copies(dockerfile).filter((c) => c.from)) expect(stages).toContain(copy.from);
  });

  it('keeps every workspace manifest in the build context, since npm ci checks them against the lock file', () => {
    const workspaces: string[] = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).workspaces;
    expect(lockedWorkspaces().length).toBeGreaterThanOrEqual(workspaces.length);
    for (const workspace of lockedWorkspaces()) expect(ignored(`${workspace}/package.json`), workspace).toBe(false);
  });

  it('gathers the manifest of every workspace in the lock file in the manifests stage, which the npm ci stages install from', () => {
    const copied = copies(dockerfile, 'manifests')
      .filter((c) => !c.from)
      .flatMap((c) => c.sources);
    const gather = dockerfile.getInstructions().find((i) => i.getKeyword() === 'RUN' && i.getTextContent().includes('-name package.json'));
    const roots =
      /find ((?:[\w./-]+ )+)-name package\.json/
        .exec(gather?.getTextContent() ?? '')?.[1]
        .trim()
        .split(' ') ?? [];
    expect(roots.length).toBeGreaterThan(0);
    for (const manifest of lockedWorkspaces().map((workspace) => `${workspace}/package.json`)) {
      expect(
        copied.some((source) => brings(source, manifest)),
        `${manifest} is copied into the manifests stage`,
      ).toBe(true);
      expect(
        roots.some((root) => brings(root, manifest)),
        `${manifest} is under a directory the find searches`,
      ).toBe(true);
    }
  });

  it("gives the dashboard's build stage every tsconfig its Vite build reads, up the extends chain", () => {
    const copied = copies(dockerfile, 'web')
      .filter((c) => !c.from)
      .flatMap((c) => c.sources);
    const chain = tsconfigChain('clients/web/tsconfig.json');
    expect(chain).toContain('tsconfig.base.json');
    for (const file of chain) {
      expect(ignored(file), `${file} is excluded by .dockerignore`).toBe(false);
      expect(
        copied.some((source) => brings(source, file)),
        `${file} is copied into the web stage`,
      ).toBe(true);
    }
  });

  it('leaves tests, documentation and local state out of the image', () => {
    for (const p of [
      'libs/bus/test/nats-bus.test.ts',
      'libs/db/src/cursor.test.ts',
      'docs/api.md',
      '.git/HEAD',
      'node_modules/pg/package.json',
      '.lode/admin-token',
      'k8s/base/kustomization.yaml',
      'services/system/testing/stack.ts',
    ]) {
      expect(ignored(p), p).toBe(true);
    }
  });

  it('installs the production dependencies of every service SERVICE can name, and of the registry the entry point reads', () => {
    const install = dockerfile.getInstructions().find((i) => i.getKeyword() === 'RUN' && i.getTextContent().includes('npm ci'));
    const command = install?.getTextContent() ?? '';
    expect(command).toMatch(/--omit=dev/);
    const workspaces = [...command.matchAll(/--workspace=@lode\/([a-z]+)/g)].map((m) => m[1]);
    expect(workspaces.sort()).toEqual([...IMAGE_SERVICES, 'system'].sort());
  });

  it('copies the entry point, every module it imports and the module it runs for each SERVICE', () => {
    const copied = copies(dockerfile)
      .filter((c) => !c.from)
      .flatMap((c) => c.sources);
    const isCopied = (file: string) => copied.some((source) => brings(source, file)) && !ignored(file);
    const entrypoint = 'deploy/entrypoint.ts';
    const imports = [...readFileSync(path.join(REPO_ROOT, entrypoint), 'utf8').matchAll(/from '(\.[^']+)'/g)].map((m) => path.join('deploy', m[1]));
    const started = IMAGE_SERVICES.map((service) => path.relative(REPO_ROOT, fileURLToPath(entryOf(service))));
    expect(started).toContain('services/system/src/service-main.ts');
    for (const file of [entrypoint, ...imports, 'libs/telemetry/src/register.ts', ...started]) {
      expect(isCopied(file), file).toBe(true);
      expect(existsSync(path.join(REPO_ROOT, file)), file).toBe(true);
    }
  });

  it('runs the entry point as a non-root user, in exec form, stopped by SIGTERM, on Node 24 slim', () => {
    const runtime = dockerfile.getFROMs().at(-1)!;
    const lastStage = dockerfile.getInstructions().filter((i) => i.getRange().start.line >= runtime.getRange().start.line);
    const keyword = (name: string) => lastStage.filter((i) => i.getKeyword() === name).at(-1);

    const user = keyword('USER')?.getArguments()[0]?.getValue() ?? '';
    expect(user).toMatch(/^[1-9]\d*(:\d+)?$/);
    expect(JSON.parse(keyword('ENTRYPOINT')!.getArgumentsContent()!)).toEqual(ENTRYPOINT);
    expect(keyword('STOPSIGNAL')?.getArguments()[0]?.getValue()).toBe('SIGTERM');
    expect(text).toMatch(/^ARG NODE_IMAGE=node:24-slim$/m);
    for (const from of dockerfile.getFROMs()) expect(['${NODE_IMAGE}', 'node:24-slim']).toContain(from.getImage());
  });
});
