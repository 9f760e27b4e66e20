import type { z } from 'zod';

/**
 * One route as the OpenAPI description tells it. Its schemas are the objects the gateway validates
 * with and the contracts' replies (libs/contracts), never copies, so the description cannot drift
 * from what is checked; only what no schema exists for (sync's streamed rows, health, the download
 * entries the commit service reads in a loop) is described beside its operation. Path parameters
 * are derived from the path (openapi/path-params.ts).
 */
export interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The express route template, exactly as the gateway registers it (`/api/v1/projects/:projectId/...`). */
  path: string;
  summary: string;
  description?: string;
  /**
   * Who may call it: a project key with its device (or a dashboard session, as the project routes
   * accept both), a dashboard session only, the admin token, or anyone.
   */
  auth: 'key' | 'session' | 'admin' | 'none';
  /** Counts against the project's write rate limit, so it may answer 429. */
  write?: boolean;
  /** Path parameters not named `…Id` (a UUID unless given here). */
  params?: z.ZodRawShape;
  query?: z.ZodObject;
  /** Request headers beyond authentication (X-Idempotency-Key). */
  headers?: z.ZodObject;
  body?: z.ZodType;
  /** The success status; 200 unless given. */
  status?: 200 | 201 | 202;
  /** The success body; a stream of Server-Sent Events carries it as each event's data. */
  reply: z.ZodType;
  replyType?: 'application/json' | 'text/event-stream';
  /**
   * Error statuses this route answers beyond those its kind, its path's ids and the gateway's guards
   * give it (openapi/responses.ts): what its service decides.
   */
  errors?: readonly number[];
}

/** The operations of one route file (services/gateway/src/routes/*.ts), shown under one tag. */
export interface OperationGroup {
  tag: string;
  description: string;
  /**
   * Its routes are mounted before the body guards (app.ts), which never see their requests. The
   * OpenAPI test's probe of the bare gateway fails when a group says so and its routes answer them.
   */
  beforeBodyGuards?: true;
  operations: readonly (Operation | RedirectOperation)[];
}

/** A route that answers with a redirect (a browser's sign-in), not a body. */
export interface RedirectOperation extends Omit<Operation, 'status' | 'reply' | 'replyType'> {
  /** Where the 303 sends the browser. */
  redirect: string;
}
