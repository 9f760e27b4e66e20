import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestStack, type TestStack } from '@lode/system/testing';
import type { SeededProject } from '@lode/testkit';

const LFS_TYPE = 'application/vnd.git-lfs+json';
/** Replay a failure with the seed it printed. */
const SEED = Number(process.env.FUZZ_SEED ?? 20261129);
const RUNS = 300;

const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
const anyOid = fc.oneof(hex64, fc.string(), fc.integer(), fc.constant(null));
const anySize = fc.oneof(fc.integer(), fc.double(), fc.constant(-1), fc.constant(2 ** 53), fc.string(), fc.constant(null));
const anyPath = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constant('../x'), fc.constant('a/'.repeat(600)), fc.integer());

/** Bodies shaped like the protocol's, with every field also wrong, and any JSON at all. */
const batchBody = fc.record(
  {
    operation: fc.oneof(fc.constantFrom('upload', 'download'), fc.string()),
    transfers: fc.oneof(fc.constant(['basic']), fc.array(fc.string())),
    objects: fc.oneof(fc.array(fc.record({ oid: anyOid, size: anySize }), { maxLength: 20 }), fc.jsonValue()),
    hash_algo: fc.oneof(fc.constant('sha256'), fc.string()),
    ref: fc.oneof(fc.record({ name: fc.string() }), fc.jsonValue()),
  },
  { requiredKeys: [] },
);
const lockBody = fc.record({ path: anyPath, ref: fc.jsonValue() }, { requiredKeys: [] });
const unlockBody = fc.record({ force: fc.oneof(fc.boolean(), fc.jsonValue()), ref: fc.jsonValue() }, { requiredKeys: [] });
const verifyBody = fc.record({ oid: anyOid, size: anySize, cursor: fc.oneof(fc.string(), fc.jsonValue()), limit: anySize }, { requiredKeys: [] });
const segment = fc.oneof(fc.uuid(), fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent), fc.constant('%ZZ'));
const query = fc.dictionary(fc.constantFrom('path', 'id', 'cursor', 'limit', 'refspec', 'x'), fc.string(), { maxKeys: 4 });

/** One request to a route of the LFS server, with a body of its kind or any JSON. */
const request = fc.oneof(
  fc.record({ method: fc.constant('POST'), path: fc.constant('/objects/batch'), body: fc.oneof(batchBody, fc.jsonValue()) }),
  fc.record({ method: fc.constant('POST'), path: fc.constant('/objects/verify'), body: fc.oneof(verifyBody, fc.jsonValue()) }),
  fc.record({ method: fc.constant('POST'), path: fc.constant('/locks'), body: fc.oneof(lockBody, fc.jsonValue()) }),
  fc.record({ method: fc.constant('POST'), path: fc.constant('/locks/verify'), body: fc.oneof(verifyBody, fc.jsonValue()) }),
  fc.record({ method: fc.constant('POST'), path: segment.map((id) => `/locks/${id}/unlock`), body: fc.oneof(unlockBody, fc.jsonValue()) }),
  fc.record({ method: fc.constant('GET'), path: query.map((q) => `/locks?${new URLSearchParams(q).toString()}`), body: fc.constant(undefined) }),
);

describe('the Git LFS server under arbitrary input', () => {
  let stack: TestStack;
  let project: SeededProject;
  let authorization: string;

  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local' });
    project = await stack.seed.project();
    authorization = `Basic ${Buffer.from(`${project.deviceId}:${project.key}`).toString('base64')}`;
  }, 120_000);
  afterAll(async () => stack?.stop());

  it(`answers ${RUNS} random requests with a success or a 4xx in its own media type, never a 500 (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(request, async ({ method, path, body }) => {
        const response = await fetch(`${stack.baseUrl}/lfs/${project.projectId}${path}`, {
          method,
          headers: { authorization, accept: LFS_TYPE, ...(body === undefined ? {} : { 'content-type': LFS_TYPE }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        expect(response.status, `${method} ${path} ${JSON.stringify(body)?.slice(0, 300)} → ${text.slice(0, 300)}`).toBeLessThan(500);
        expect(response.headers.get('content-type')).toContain(LFS_TYPE);
        expect(JSON.parse(text)).toBeTypeOf('object');
      }),
      { seed: SEED, numRuns: RUNS },
    );
  }, 600_000);
});
