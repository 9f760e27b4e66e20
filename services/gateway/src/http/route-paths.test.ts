import { Router, type Request, type Response } from 'express';
import { describe, expect, it } from 'vitest';
import { forPaths } from './route-paths.ts';

/** Whether a request for `path` reaches a router guarded by `paths`. */
function reaches(paths: readonly string[], path: string): boolean {
  let reached = false;
  const router = Router();
  router.use(() => {
    reached = true;
  });
  void forPaths(paths, router)({ path, url: path, method: 'GET' } as Request, {} as Response, () => undefined);
  return reached;
}

const ROUTES = ['/admin/*', '/api/v1/projects/:projectId/keys/:keyId', '/api/v1/me/orgs'];

describe('forPaths', () => {
  it('lets through every path Express could match to one of the routes, in any case and with a trailing slash', () => {
    for (const path of [
      '/admin',
      '/admin/',
      '/admin/v1/orgs',
      '/ADMIN/v1/users/x',
      '/api/v1/projects/p-1/keys/k',
      '/API/v1/Projects/p/KEYS/k/',
      '/api/v1/me/orgs',
    ]) {
      expect(reaches(ROUTES, path), path).toBe(true);
    }
  });

  it('skips the router for paths none of its routes could match', () => {
    for (const path of [
      '/administer',
      '/api/v1/projects/p/locks',
      '/api/v1/projects/p/keys',
      '/api/v1/projects/p/keys/k/reset',
      '/api/v1/me/orgs/x',
      '/api/v1/me',
    ]) {
      expect(reaches(ROUTES, path), path).toBe(false);
    }
  });

  it("keeps the router's routes listed where Express lists a router's", () => {
    const router = Router();
    router.get('/admin/x', () => undefined);
    expect((forPaths(['/admin/*'], router) as unknown as { stack: unknown }).stack).toBe(router.stack);
  });

  it('reads its paths literally, not as patterns', () => {
    expect(reaches(['/a.b'], '/a.b')).toBe(true);
    expect(reaches(['/a.b'], '/axb')).toBe(false);
  });
});
