import type { AddressInfo } from 'node:net';
import express from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errors } from '@lode/errors';
import { accessLog } from './access-log.ts';
import { errorHandler, routeNotFound } from './error-handler.ts';
import { requestId } from './request-id.ts';
import { mountedAt, requestMetrics } from './request-metrics.ts';

const KEY = `lode_${'k'.repeat(40)}`;
const SIGNATURE = 'sig-that-grants-access';

describe('access log', () => {
  const lines: string[] = [];
  let baseUrl: string;
  let close: () => void;

  beforeAll(async () => {
    const logger = pino({ base: { service: 'test' } }, { write: (line: string) => void lines.push(line) });
    const app = express();
    // The gateway's own order (app.ts): request id, metrics, access log, then the routes.
    app.use(requestId, requestMetrics, accessLog(logger));
    const mount = '/api/v1/projects/:projectId';
    const project = express.Router({ mergeParams: true });
    project.use(mountedAt(mount));
    project.get('/locks', (_req, res) => void res.json({ data: [] }));
    project.post('/locks', () => {
      throw errors.forbidden('not yours');
    });
    app.use(mount, project);
    app.use(routeNotFound);
    app.use(errorHandler(logger));
    const server = app.listen(0);
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  afterAll(() => close?.());

  /** The one access line written for the request with this id (the response is sent before the line is). */
  async function lineFor(id: string): Promise<Record<string, unknown>> {
    await expect.poll(() => lines.filter((line) => line.includes(id)).length).toBe(1);
    return JSON.parse(lines.find((line) => line.includes(id)) ?? '') as Record<string, unknown>;
  }

  it('writes one info line with method, route template, status, duration and request id, and no key or signature', async () => {
    const response = await fetch(`${baseUrl}/api/v1/projects/3f2b7c1e-0000-4000-8000-000000000001/locks?cursor=${SIGNATURE}`, {
      headers: { authorization: `Bearer ${KEY}`, 'x-request-id': 'trace-me-1' },
    });
    expect(response.status).toBe(200);
    expect(await lineFor('trace-me-1')).toEqual({
      level: 30,
      time: expect.any(Number),
      service: 'test',
      request_id: 'trace-me-1',
      req: { method: 'GET', route: '/api/v1/projects/:projectId/locks', url: '/api/v1/projects/3f2b7c1e-0000-4000-8000-000000000001/locks' },
      res: { statusCode: 200 },
      responseTime: expect.any(Number),
      msg: 'request completed',
    });
    const all = lines.join('\n');
    expect(all).not.toContain(KEY);
    expect(all).not.toContain(SIGNATURE);
  });

  it('logs refused and unknown requests with their status and the id the response carried', async () => {
    const refused = await fetch(`${baseUrl}/api/v1/projects/p/locks`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` } });
    expect(refused.status).toBe(403);
    const refusedId = refused.headers.get('x-request-id') ?? '';
    expect(await lineFor(refusedId)).toMatchObject({
      level: 30,
      request_id: refusedId,
      req: { method: 'POST', route: '/api/v1/projects/:projectId/locks' },
      res: { statusCode: 403 },
    });

    const unknown = await fetch(`${baseUrl}/nowhere/${KEY}`, { headers: { 'x-request-id': 'trace-me-2' } });
    expect(unknown.status).toBe(404);
    expect(await lineFor('trace-me-2')).toMatchObject({ req: { method: 'GET', route: 'unmatched' }, res: { statusCode: 404 } });
  });
});
