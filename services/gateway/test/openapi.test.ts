import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { buildOpenApiDocument } from '../src/openapi/document.ts';
import { OPERATION_GROUPS } from '../src/openapi/operations/index.ts';
import { BARE_ADMIN_TOKEN, bareGatewayApp } from './bare-gateway.ts';
import { registeredRoutes } from './fuzz/registered-routes.ts';

/** The reference pages are HTML for people, not operations of the API. */
const DOCUMENTATION_PAGES = /^\/docs(\/|$)/;
/** The Git LFS server speaks git-lfs's own protocol (docs/api.md, Git LFS server), not this API. */
const GIT_LFS_PROTOCOL = /^\/lfs\//;

/** `{b}` back to express's `:b`. */
const expressPath = (openApiPath: string) => openApiPath.replace(/\{(\w+)\}/g, ':$1');

describe('the OpenAPI description', () => {
  const document = buildOpenApiDocument();

  it('describes exactly the routes the gateway serves: none missing, none that does not exist', async () => {
    const { app, close } = bareGatewayApp();
    try {
      const served = registeredRoutes(app)
        .filter((r) => r.method !== 'USE' && !DOCUMENTATION_PAGES.test(r.path) && !GIT_LFS_PROTOCOL.test(r.path))
        .map((r) => `${r.method} ${r.path}`);
      const described = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
        Object.keys(item ?? {}).map((method) => `${method.toUpperCase()} ${expressPath(path)}`),
      );
      expect(served.length).toBeGreaterThan(20);
      expect({ missing: served.filter((r) => !described.includes(r)), notServed: described.filter((r) => !served.includes(r)) }).toEqual({
        missing: [],
        notServed: [],
      });
      // Each route is described once (a second GET on one path would collapse into the first).
      expect(new Set(described).size).toBe(OPERATION_GROUPS.flatMap((g) => g.operations).length);
      // OpenAPI wants operationIds unique (generated clients name their methods after them); no schema checks it.
      const ids = Object.values(document.paths ?? {}).flatMap((item) => Object.values(item ?? {}).map((op) => (op as { operationId?: string }).operationId));
      expect(new Set(ids).size).toBe(described.length);
    } finally {
      await close();
    }
  });

  it('lists every status the gateway answers at its edge: no credentials, a body that is not JSON, a malformed id', async () => {
    const { app, close } = bareGatewayApp();
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, method, path, headers: body === undefined ? headers : { ...headers, 'content-length': String(body.length) } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const unlisted: string[] = [];
    try {
      for (const [path, item] of Object.entries(document.paths ?? {})) {
        // An id no route finds (the edge answers it before any service), any other parameter a plain word.
        const target = path.replace(/\{\w+Id\}/g, 'not-a-uuid').replace(/\{\w+\}/g, 'x');
        for (const [method, operation] of Object.entries(item ?? {}) as [string, { responses?: Record<string, unknown> }][]) {
          const listed = Object.keys(operation.responses ?? {});
          const probes: [string, Record<string, string>, string?][] = [
            ['no credentials', {}],
            ['a text/plain body', { 'content-type': 'text/plain' }, 'x'],
            ['the admin token', { authorization: `Bearer ${BARE_ADMIN_TOKEN}` }],
          ];
          for (const [what, headers, body] of probes) {
            const status = await send(method.toUpperCase(), target, headers, body);
            if (!listed.includes(String(status))) unlisted.push(`${method.toUpperCase()} ${path} with ${what}: ${status} (lists ${listed.join(', ')})`);
          }
        }
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await close();
    }
    expect(unlisted).toEqual([]);
  });

  it('cites no section numbers of a spec its readers never saw', () => {
    expect(JSON.stringify(document)).not.toMatch(/\bspec \d|§/i);
  });

  it('is valid OpenAPI 3.1 by a standard validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(JSON.stringify(document)) as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('gives every operation its success reply and an error body with the codes its statuses carry', () => {
    const confirmBatch = document.paths?.['/api/v1/projects/{projectId}/files/upload/confirm-batch']?.post;
    expect(Object.keys(confirmBatch?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '413', '429', '503']));
    const conflict = document.paths?.['/api/v1/projects/{projectId}/files/upload/confirm']?.post?.responses?.['409'];
    expect(JSON.stringify(conflict)).toContain('version_conflict');
    // Generated from the contract: the batch's result forms, with the single confirm's error form.
    expect(JSON.stringify(confirmBatch?.responses?.['200'])).toContain('versionConflict');
    expect(document.paths?.['/api/v1/projects/{projectId}/commits']?.post?.security).toEqual([{ projectKey: [], deviceId: [] }, { session: [] }]);
    expect(document.paths?.['/admin/v1/orgs']?.post?.security).toEqual([{ adminToken: [] }]);
    // What the session check, the CSRF check and an unknown id answer; a body refused even where none is read.
    const statuses = (path: string, method: 'get' | 'post' | 'delete') => Object.keys(document.paths?.[path]?.[method]?.responses ?? {});
    expect(statuses('/api/v1/orgs/{orgId}/members/{userId}', 'delete')).toEqual(expect.arrayContaining(['401', '403', '404', '413', '415']));
    expect(statuses('/api/v1/orgs/{orgId}/projects', 'get')).toEqual(expect.arrayContaining(['401', '404', '415']));
    expect(statuses('/admin/v1/projects/{projectId}/webhooks', 'post')).toContain('404');
    expect(statuses('/admin/v1/users', 'post')).toContain('409');
    expect(statuses('/healthz', 'get')).toEqual(['200', '500']);
  });
});

describe.each(['local', 'nats'] as const)('the description and the reference served (%s bus)', (bus) => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ bus });
  }, 120_000);
  afterAll(async () => stack?.stop());

  it('serves GET /api/v1/openapi.json to anyone, as built', async () => {
    const res = await fetch(`${stack.baseUrl}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });

  it('serves /docs as HTML that loads nothing from another host', async () => {
    const res = await fetch(`${stack.baseUrl}/docs`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('/api/v1/openapi.json');
    // Every script and stylesheet is a path on this server: the page works with no internet.
    const sources = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(sources.filter((s) => !s.startsWith('/'))).toEqual([]);
    expect(html).not.toMatch(/https?:\/\//);
    expect(sources.filter((s) => s.endsWith('.js'))).toHaveLength(2);
    for (const source of sources.filter((s) => /\.(js|css)$/.test(s))) {
      const asset = await fetch(`${stack.baseUrl}${source}`);
      expect(asset.status, source).toBe(200);
      expect(asset.headers.get('content-type'), source).toMatch(source.endsWith('.css') ? /text\/css/ : /javascript/);
      if (source.endsWith('init.js')) expect(await asset.text()).toContain('/api/v1/openapi.json');
    }
  });

  it('names an icon this server serves, so a browser opening /docs does not ask for a /favicon.ico that is not there', async () => {
    const html = await (await fetch(`${stack.baseUrl}/docs`)).text();
    const icon = /<link rel="icon"[^>]*\shref="([^"]+)"/.exec(html)?.[1];
    expect(icon).toMatch(/^\//);
    const res = await fetch(`${stack.baseUrl}${icon}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\//);
  });
});
