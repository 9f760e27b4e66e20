import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVICE_NAMES } from '@lode/bus/service-names';

/**
 * What docs/architecture.md says about the repository that a reader would act on: the files it names
 * exist, every service answers its contracts from one table, and a handler file holds more than a
 * forwarding call. Read from disk and the document's text only, so it is fast and needs no server.
 */
const REPO_ROOT = path.resolve(import.meta.dirname, '..');
const DOC = 'docs/architecture.md';
const doc = readFileSync(path.join(REPO_ROOT, DOC), 'utf8');

/** What the document names that a build makes: absent from a fresh checkout. */
const MADE_BY_A_BUILD = new Set(['clients/web/dist']);

const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage']);

/** Every file of the repository, relative to its root, outside hidden folders and what builds make. */
function repositoryFiles(dir = ''): string[] {
  return readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || SKIPPED_DIRS.has(entry.name)) return [];
    const relative = dir ? `${dir}/${entry.name}` : entry.name;
    return entry.isDirectory() ? repositoryFiles(relative) : [relative];
  });
}

const FILES = repositoryFiles();
const TOP_LEVEL_DIRS = new Set(FILES.filter((file) => file.includes('/')).map((file) => file.slice(0, file.indexOf('/'))));

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');
const exists = (file: string) => MADE_BY_A_BUILD.has(file.replace(/\/$/, '')) || existsSync(path.join(REPO_ROOT, file));

/** The inline code spans of markdown, fenced blocks left out; a span may go on over a line break, not a blank line. */
function codeSpans(markdown: string): string[] {
  return [...markdown.replace(/^```[^]*?^```/gm, '').matchAll(/`([^`\n]+(?:\n[^`\n]+)*)`/g)].map((match) => (match[1] ?? '').replace(/\s+/g, ' '));
}

/** A placeholder (`services/<name>/…`), a glob or a phrase, not one file. */
const isTemplate = (span: string) => /[<>*{}()\s…]/.test(span);
/** A path from the repository's root: it begins with one of the root's folders. */
const isFullPath = (span: string) => !isTemplate(span) && span.includes('/') && TOP_LEVEL_DIRS.has(span.slice(0, span.indexOf('/')));
/** A file named by a path relative to some folder (`domain/lineage.ts`) or by its name alone. */
const isFileName = (span: string) => !isTemplate(span) && /^[\w@.\-/]+\.(ts|tsx|js|sql|json|ya?ml|md|sh|lua)$/.test(span);

/** The lines of a `## ` section, up to the next one. */
function section(title: string): string[] {
  const lines = doc.split('\n');
  const start = lines.indexOf(`## ${title}`);
  if (start < 0) throw new Error(`${DOC} has no section "${title}"`);
  const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** `file` in the folder `src`: by its path in it, or by its name alone when exactly one file there has it. */
function resolveIn(src: string, file: string): string {
  if (file.includes('/')) return `${src}/${file}`;
  const named = FILES.filter((candidate) => candidate.startsWith(`${src}/`) && path.posix.basename(candidate) === file);
  if (named.length > 1) return `${src}/…/${file} (ambiguous: ${named.join(', ')})`;
  return named[0] ?? `${src}/…/${file}`;
}

interface PathRow {
  gateway: string;
  contracts: string;
  service: string;
}

/** The rows of "Finding a request's path", but for their first cell (the request): gateway, contract, service. */
function pathRows(): PathRow[] {
  return section("Finding a request's path")
    .filter((line) => line.startsWith('|') && !/^\|\s*(request|-)/.test(line))
    .map((line) => {
      const [gateway = '', contracts = '', service = ''] = line.split('|').slice(2, -1);
      return { gateway, contracts, service };
    });
}

/** The contracts a cell names, `module.op`, a bare `op` taking the module named before it. */
function contractsOf(cell: string): string[] {
  let module: string | undefined;
  return codeSpans(cell).flatMap((span) => {
    if (isFileName(span)) return [];
    const qualified = /^([a-z]+)\.([a-zA-Z]+)$/.exec(span);
    if (qualified) {
      module = qualified[1];
      return [span];
    }
    return module && /^[a-zA-Z]+$/.test(span) ? [`${module}.${span}`] : [];
  });
}

/** The service a cell begins with (`commit: …`), when it names one. */
function serviceOf(cell: string): string | undefined {
  const name = /^\s*(\w+):/.exec(cell)?.[1];
  return (SERVICE_NAMES as readonly string[]).includes(name ?? '') ? name : undefined;
}

describe(`the files ${DOC} names`, () => {
  it('exist, for every path written from the repository root', () => {
    const missing = codeSpans(doc)
      .filter(isFullPath)
      .filter((file) => !exists(file));
    expect(missing).toEqual([]);
  });

  it('exist somewhere, for every file named by a shorter path or its name alone', () => {
    const missing = codeSpans(doc)
      .filter((span) => isFileName(span) && !isFullPath(span))
      .filter((file) => !FILES.some((candidate) => candidate === file || candidate.endsWith(`/${file}`)));
    expect(missing).toEqual([]);
  });

  it("exist where \"Finding a request's path\" puts them: the gateway's under its src, a service's under that service's", () => {
    const rows = pathRows();
    expect(rows.length).toBeGreaterThan(10);
    const missing = rows.flatMap((row) => {
      const gateway = codeSpans(row.gateway)
        .filter((span) => isFileName(span) && !isFullPath(span))
        .map((file) => resolveIn('services/gateway/src', file));
      const service = serviceOf(row.service);
      const serviceFiles = service
        ? codeSpans(row.service)
            .filter((span) => isFileName(span) && !isFullPath(span))
            .map((file) => resolveIn(`services/${service}/src`, file))
        : [];
      return [...gateway, ...serviceFiles].filter((file) => !exists(file));
    });
    expect([...new Set(missing)]).toEqual([]);
  });
});

describe(`the services ${DOC} describes`, () => {
  it.each(SERVICE_NAMES)('%s answers its contracts from one table, src/serve.ts, which its start.ts serves', (name) => {
    const src = `services/${name}/src`;
    expect(exists(`${src}/serve.ts`), `${src}/serve.ts`).toBe(true);
    const start = read(`${src}/start.ts`);
    expect(start).toMatch(/from '\.\/serve\.ts'/);
    expect(start).toMatch(/\bserveRpcs\(/);
  });

  it('answers each contract of a "Finding a request\'s path" row in the service that row names', () => {
    const unanswered = pathRows().flatMap((row) => {
      const service = serviceOf(row.service);
      if (!service) return [];
      const table = read(`services/${service}/src/serve.ts`);
      return contractsOf(row.contracts)
        .filter((contract) => !table.includes(`rpc(${contract},`))
        .map((contract) => `${contract} in services/${service}/src/serve.ts`);
    });
    expect(unanswered).toEqual([]);
  });

  it('keeps a handler file only where it holds more than a forwarding call: each is used by start.ts or serve.ts and serves no contract', () => {
    const handlers = FILES.filter((file) => /^services\/[^/]+\/src\/handlers\/[^/]+\.ts$/.test(file) && !file.endsWith('.test.ts'));
    expect(handlers.length).toBeGreaterThan(0);
    const misplaced = handlers.flatMap((file) => {
      const src = file.slice(0, file.indexOf('/handlers/'));
      const users = ['start.ts', 'serve.ts'].filter(
        (user) => exists(`${src}/${user}`) && read(`${src}/${user}`).includes(`'./handlers/${path.posix.basename(file)}'`),
      );
      const problems: string[] = [];
      if (users.length === 0) problems.push(`${file} is imported by neither ${src}/start.ts nor ${src}/serve.ts`);
      // A contract is served from the service's table (rpc rows), never from a file of its own.
      if (/\.serve\(|\bserveRpcs\(|\brpc\(/.test(read(file))) problems.push(`${file} serves a contract: make it a row of ${src}/serve.ts`);
      return problems;
    });
    expect(misplaced).toEqual([]);
  });
});
