import { z } from 'zod';
import { createDocument, type ZodOpenApiObject, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { identity } from '@lode/contracts';
import { SESSION_COOKIE } from '../auth/session-cookie.ts';
import type { Operation, OperationGroup, RedirectOperation } from './operation.ts';
import { OPERATION_GROUPS } from './operations/index.ts';
import { openApiPath, pathParams } from './path-params.ts';
import { errorResponse, errorStatuses } from './responses.ts';

type OpenApiDocument = ReturnType<typeof createDocument>;

const SECURITY: Record<Operation['auth'], Record<string, string[]>[]> = {
  // The project routes take a key bound to its device, or a dashboard session (auth/middleware.ts).
  key: [{ projectKey: [], deviceId: [] }, { session: [] }],
  session: [{ session: [] }],
  admin: [{ adminToken: [] }],
  none: [],
};

const SECURITY_SCHEMES = {
  projectKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'A project key (`lode_…`), made in the dashboard or with the admin API; it authenticates one user in one project.',
  },
  deviceId: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Device-Id',
    description: `The calling machine: the first request binds the key to it, another device then gets 403 device_mismatch. Matches ${identity.DEVICE_ID_PATTERN.source}.`,
  },
  session: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: "The dashboard's session (writes also send its CSRF token)." },
  adminToken: { type: 'http', scheme: 'bearer', description: 'The operators\u2019 token, `LODE_ADMIN_TOKEN`.' },
} as const;

function operationObject(op: Operation | RedirectOperation, group: OperationGroup): ZodOpenApiOperationObject {
  const path = pathParams(op.path, op.params);
  const errors = Object.fromEntries(errorStatuses(op, group).map((status) => [String(status), errorResponse(status)]));
  return {
    tags: [group.tag],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    operationId: operationId(op),
    security: SECURITY[op.auth],
    requestParams: { ...(path ? { path } : {}), ...(op.query ? { query: op.query } : {}), ...(op.headers ? { header: op.headers } : {}) },
    ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: op.body } } } } : {}),
    responses: { ...success(op), ...errors },
  };
}

function success(op: Operation | RedirectOperation): ZodOpenApiResponsesObject {
  if ('redirect' in op) return { '303': { description: `See Other: to ${op.redirect}`, headers: { Location: { schema: { type: 'string' } } } } };
  return { [String(op.status ?? 200)]: { description: 'Success', content: { [op.replyType ?? 'application/json']: { schema: op.reply } } } };
}

/**
 * `post /api/v1/projects/:projectId/files/upload/confirm-batch` → `postProjectsFilesUploadConfirmBatch`,
 * `get …/commits/:commitId` → `getProjectsCommitsByCommitId`: stable, unique names for generated
 * clients (every project route has :projectId, so it is left out).
 */
function operationId(op: Operation | RedirectOperation): string {
  const words = op.path
    .split('/')
    .filter((part) => part !== '' && part !== 'api' && part !== 'v1' && part !== ':projectId')
    .flatMap((part) => (part.startsWith(':') ? ['by', part.slice(1)] : part.split(/[-_.]/)));
  return op.method + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

/**
 * OpenAPI renders reply schemas as what the server writes. The contracts normalise with transforms
 * (ids and hashes lower-cased) that keep the type, so a transform's input stands for its output; and
 * answers may grow fields (docs/api.md, Versioning), so no reply is closed to more properties.
 */
function describeOutputs({ jsonSchema, zodSchema, io }: { jsonSchema: Record<string, unknown>; zodSchema: z.core.$ZodType; io: 'input' | 'output' }): void {
  if (io !== 'output') return;
  const def = zodSchema._zod.def;
  if (def.type === 'pipe' && Object.keys(jsonSchema).length === 0) {
    Object.assign(jsonSchema, z.toJSONSchema((def as z.core.$ZodPipeDef).in, { io: 'output', unrepresentable: 'any' }));
    delete jsonSchema.$schema;
  }
  if (jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
}

/** The OpenAPI 3.1 description of every route in `groups` (all the gateway's, by default). */
export function buildOpenApiDocument(groups: readonly OperationGroup[] = OPERATION_GROUPS): OpenApiDocument {
  const paths: ZodOpenApiPathsObject = {};
  for (const group of groups) {
    for (const op of group.operations) {
      const key = openApiPath(op.path);
      const item = (paths[key] ??= {});
      if (item[op.method]) throw new Error(`${op.method.toUpperCase()} ${op.path} is described twice`);
      item[op.method] = operationObject(op, group);
    }
  }
  const document: ZodOpenApiObject = {
    openapi: '3.1.0',
    info: {
      title: 'Lode API',
      version: '1',
      description:
        'Version control for large binary files. Every route, with what it takes and answers, generated from the schemas the gateway validates with; the rules behind them are in docs/api.md.',
    },
    tags: groups.map((g) => ({ name: g.tag, description: g.description })),
    paths,
    components: { securitySchemes: SECURITY_SCHEMES },
  };
  return createDocument(document, { override: describeOutputs });
}
