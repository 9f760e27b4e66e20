import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushFile } from '@lode/testkit';
import { startProcessStack, type ProcessStack } from '@lode/system/testing';

/** A span as OTLP/HTTP JSON carries it, which is what Jaeger and every OTLP collector accept. */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  service: string;
  attributes: Record<string, unknown>;
}

const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;

/** An OTLP/HTTP receiver in the test: the processes export to it exactly as they would to a collector. */
function startCollector(): Promise<{ server: Server; url: string; spans: OtlpSpan[] }> {
  const spans: OtlpSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const rs of body.resourceSpans ?? []) {
          const service = rs.resource.attributes.find((a: any) => a.key === 'service.name')?.value.stringValue;
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              const attributes = Object.fromEntries((s.attributes ?? []).map((a: any) => [a.key, Object.values(a.value)[0]]));
              spans.push({ traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, name: s.name, kind: s.kind, service, attributes });
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans })),
  );
}

/** Older and newer semantic conventions name the database attribute differently. */
const dbSystem = (s: OtlpSpan) => s.attributes['db.system'] ?? s.attributes['db.system.name'];
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

describe('one trace per API call, across processes', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let stack: ProcessStack;

  beforeAll(async () => {
    collector = await startCollector();
    // Every spawned process inherits these: the standard OTEL_* variables are the whole configuration.
    Object.assign(process.env, {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    stack = await startProcessStack({ storage: 'local' });
  });
  afterAll(async () => {
    for (const key of [
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OTEL_EXPORTER_OTLP_PROTOCOL',
      'OTEL_TRACES_EXPORTER',
      'OTEL_METRICS_EXPORTER',
      'OTEL_LOGS_EXPORTER',
      'OTEL_BSP_SCHEDULE_DELAY',
    ])
      delete process.env[key];
    await stack?.stop();
    collector?.server.close();
  });

  const inTrace = (traceId: string) => collector.spans.filter((s) => s.traceId === traceId);
  const ancestors = (spans: OtlpSpan[], span: OtlpSpan): OtlpSpan[] => {
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const chain: OtlpSpan[] = [];
    for (let parent = span.parentSpanId && byId.get(span.parentSpanId); parent; parent = parent.parentSpanId && byId.get(parent.parentSpanId))
      chain.push(parent);
    return chain;
  };
  const one = (spans: OtlpSpan[], match: (s: OtlpSpan) => boolean, what: string) => {
    const found = spans.find(match);
    if (!found) throw new Error(`no span for ${what}; the trace holds: ${spans.map((s) => `${s.service}:${s.name}`).join(', ')}`);
    return found;
  };

  it('chains a commit from the HTTP span through the bus, each service, Postgres, Redis and the event consumers it triggers', async () => {
    const p = await stack.seed.project();
    const confirmTrace = hex(16);
    const confirmParent = hex(8);
    const pushed = await pushFile(p.api.withHeaders({ traceparent: `00-${confirmTrace}-${confirmParent}-01` }), p.projectId, 'art/hero.png', randomBytes(4096));

    const traceId = hex(16);
    const clientSpanId = hex(8);
    const committed = await p.api.post(
      `/api/v1/projects/${p.projectId}/commits`,
      { message: 'traced', fileVersions: [{ fileId: pushed.fileId, version: pushed.version, action: 'add' }] },
      { traceparent: `00-${traceId}-${clientSpanId}-01` },
    );
    expect(committed.status).toBe(201);

    // The consumers take commit.created after the reply; their spans arrive last.
    await expect
      .poll(
        () =>
          inTrace(traceId)
            .filter((s) => s.kind === CONSUMER)
            .map((s) => s.service)
            .sort(),
        { timeout: 30_000, interval: 250 },
      )
      .toEqual(expect.arrayContaining(['lode-lock', 'lode-sync']));
    const spans = inTrace(traceId);

    const http = one(spans, (s) => s.service === 'lode-gateway' && s.kind === SERVER && s.parentSpanId === clientSpanId, 'the gateway HTTP span');
    const call = one(spans, (s) => s.service === 'lode-gateway' && s.kind === CLIENT && s.name === 'lode.commit.v1.create call', 'the gateway bus call');
    expect(ancestors(spans, call)).toContain(http);
    const redis = one(spans, (s) => s.service === 'lode-gateway' && dbSystem(s) === 'redis', 'the rate limit in Redis');
    expect(ancestors(spans, redis)).toContain(http);

    const handler = one(spans, (s) => s.service === 'lode-commit' && s.kind === SERVER && s.name === 'lode.commit.v1.create', 'the commit handler');
    expect(handler.parentSpanId).toBe(call.spanId);
    const commitSql = spans.filter((s) => s.service === 'lode-commit' && dbSystem(s) === 'postgresql');
    expect(commitSql.length).toBeGreaterThan(0);
    for (const sql of commitSql) expect(ancestors(spans, sql)).toContain(handler);

    for (const [service, subject] of [
      ['lode-upload', 'lode.upload.v1.resolve_versions'],
      ['lode-lock', 'lode.lock.v1.fence'],
    ] as const) {
      const served = one(spans, (s) => s.service === service && s.kind === SERVER && s.name === subject, subject);
      expect(ancestors(spans, served)).toContain(handler);
      const sql = one(spans, (s) => s.service === service && ancestors(spans, s).includes(served) && dbSystem(s) === 'postgresql', `${subject}'s queries`);
      expect(sql).toBeDefined();
    }

    for (const service of ['lode-sync', 'lode-lock']) {
      const consumer = one(
        spans,
        (s) => s.service === service && s.kind === CONSUMER && s.name === 'lode.events.commit.created process',
        `${service}'s commit.created consumer`,
      );
      expect(ancestors(spans, consumer)).toContain(handler);
    }
    // Every span reaches the client's span: nothing in this trace is orphaned.
    for (const span of spans) expect([span.parentSpanId, ...ancestors(spans, span).map((s) => s.parentSpanId)]).toContain(clientSpanId);
  });

  it('puts the storage driver inside the confirm call that checks the blob', async () => {
    const p = await stack.seed.project();
    const traceId = hex(16);
    await pushFile(p.api.withHeaders({ traceparent: `00-${traceId}-${hex(8)}-01` }), p.projectId, 'art/sword.png', randomBytes(1024));
    // Initiate may HEAD the store too: wait for the confirm handler's span itself, which a busy
    // process exports after its children.
    const isConfirm = (s: OtlpSpan) => s.service === 'lode-upload' && s.kind === SERVER && s.name === 'lode.upload.v1.confirm';
    await expect.poll(() => inTrace(traceId).some(isConfirm), { timeout: 15_000, interval: 250 }).toBe(true);
    const spans = inTrace(traceId);
    const confirm = one(spans, isConfirm, 'the confirm handler');
    // A confirm is a batch of one: its objects are checked with one content_many.
    const storage = one(
      spans,
      (s) => s.service === 'lode-upload' && s.name === 'storage.content_many' && ancestors(spans, s).includes(confirm),
      'the storage check inside the confirm handler',
    );
    expect(storage.kind).toBe(CLIENT);
  });
});
