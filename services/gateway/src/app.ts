import express, { type Express, type RequestHandler } from 'express';
import type { Bus } from '@lode/bus';
import { commit } from '@lode/contracts';
import type { Logger } from '@lode/telemetry';
import { LOCAL_OBJECTS_ROUTE } from '@lode/storage';
import { Authenticator } from './auth/authenticator.ts';
import { DEFAULT_AUTH_FAILURE_LIMITS, FailureThrottle, type AuthFailureLimits } from './auth/failure-throttle.ts';
import { identityKeyDirectory } from './auth/key-directory.ts';
import { limitWrites, requireOwnProject } from './auth/middleware.ts';
import { OidcSignIn, type OidcSettings } from './auth/oidc.ts';
import { requireKeyOrSession } from './auth/sessions.ts';
import { accessLog } from './http/access-log.ts';
import { errorHandler, routeNotFound } from './http/error-handler.ts';
import { DEFAULT_BODY_LIMIT, parseByteSize, projectBodyLimit } from './http/body-limits.ts';
import { jsonBody } from './http/json-body.ts';
import { refuseOptions, refuseUnacceptableQuery, refuseUndecodablePath } from './http/request-guards.ts';
import { requestId } from './http/request-id.ts';
import { noSniff } from './http/security-headers.ts';
import { mountedAt, requestMetrics } from './http/request-metrics.ts';
import type { RateLimit, WriteLimiter } from './ratelimit/limiter.ts';
import type { TrustProxy } from './config.ts';
import { authRoutes } from './routes/auth.ts';
import { adminRoutes } from './routes/admin.ts';
import { healthRoutes } from './routes/health.ts';
import { docsRoutes } from './routes/docs.ts';
import { endpointRoutes } from './routes/endpoints.ts';
import { syncRoutes } from './routes/sync.ts';
import { sessionRoutes } from './routes/session.ts';
import { dashboardRoutes } from './routes/dashboard.ts';
import { webRoutes } from './routes/web.ts';
import { DEFAULT_FEED_LIFETIME, eventRoutes } from './routes/events.ts';
import { lfsErrors, lfsRoutes } from './lfs/lfs-routes.ts';

export interface GatewayDeps {
  bus: Bus;
  limiter: WriteLimiter;
  logger: Logger;
  adminToken: string;
  defaultWriteLimit: RateLimit;
  authCacheMs: number;
  /** Budgets of failed authentications (LODE_AUTH_FAILURES_*), counted in `limiter`; the defaults unless given. */
  authFailureLimits?: AuthFailureLimits;
  /** The largest body any route reads (LODE_BODY_LIMIT); each route reads at most its own limit below it. */
  bodyLimit: string;
  /** Services /readyz pings over the bus. */
  services: readonly string[];
  /** The local storage driver's presigned-URL handler, when blobs live on this machine's disk. */
  localObjects?: (req: express.Request, res: express.Response) => Promise<void>;
  /** True once shutdown began: /readyz fails so the balancer stops sending before the drain. */
  stopping?: () => boolean;
  /** OpenID Connect sign-in for the dashboard; off unless configured. */
  oidc?: OidcSettings | undefined;
  /** Which proxies' X-Forwarded-* headers count (LODE_TRUST_PROXY); none unless given. */
  trustProxy?: TrustProxy;
  /** Where browsers reach the gateway (LODE_PUBLIC_URL); sign-in URLs use the request's host otherwise. */
  publicUrl?: string | undefined;
  /** Where the dashboard's build is; clients/web/dist unless given. */
  webRoot?: string;
  /** Longest silence on a live event feed before a keep-alive comment (LODE_FEED_HEARTBEAT_MS). */
  feedHeartbeatMs?: number;
  /** How often an open feed authenticates its caller again; the deployed value unless given (a test's, to see a removal soon). */
  feedRecheckMs?: number;
}

export interface Gateway {
  app: Express;
  authenticator: Authenticator;
}

export function createGatewayApp(deps: GatewayDeps): Gateway {
  const throttle = new FailureThrottle(deps.limiter, deps.authFailureLimits ?? DEFAULT_AUTH_FAILURE_LIMITS);
  const authenticator = new Authenticator(identityKeyDirectory(deps.bus), { ttlMs: deps.authCacheMs, throttle });
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.set('trust proxy', deps.trustProxy ?? false);
  app.use(requestId, requestMetrics, accessLog(deps.logger), noSniff, refuseUndecodablePath);

  // Blob bytes stream through this route untouched by the JSON parser (local driver only). It answers
  // every method itself: 405 for any it does not serve, OPTIONS included (docs/api.md, Local storage URLs).
  const localObjects = deps.localObjects;
  if (localObjects) {
    app.use(LOCAL_OBJECTS_ROUTE, mountedAt(LOCAL_OBJECTS_ROUTE), (req, res) => {
      req.url = req.originalUrl; // the handler reads the object key from the full path
      return localObjects(req, res);
    });
  }

  app.use(refuseOptions);
  app.use(healthRoutes({ bus: deps.bus, services: deps.services, stopping: deps.stopping }));
  app.use(docsRoutes());

  // Bodies are read only behind each route family's authentication, so a caller without credentials
  // is answered before a byte of its body is inflated or parsed (docs/api.md, Input rules).
  const ceiling = parseByteSize(deps.bodyLimit);
  const readBody = jsonBody(Math.min(ceiling, DEFAULT_BODY_LIMIT));
  app.use(refuseUnacceptableQuery);
  app.use(authRoutes(authenticator, readBody));
  app.use(adminRoutes({ bus: deps.bus, adminToken: deps.adminToken, authenticator, throttle, publicUrl: deps.publicUrl, readBody }));
  app.use(sessionRoutes({ bus: deps.bus, oidc: deps.oidc && new OidcSignIn(deps.oidc, deps.publicUrl), throttle, readBody }));
  app.use(dashboardRoutes({ bus: deps.bus, authenticator, readBody, defaultWriteLimit: deps.defaultWriteLimit }));

  const writes: RequestHandler = limitWrites(deps.limiter, deps.defaultWriteLimit);
  app.use(
    '/lfs',
    mountedAt('/lfs'),
    lfsRoutes({ bus: deps.bus, authenticator, logger: deps.logger, limitWrites: writes, readBody, publicUrl: deps.publicUrl }),
    lfsErrors(deps.logger),
  );
  const projectMount = commit.PROJECT_PATH;
  const project = express.Router({ mergeParams: true });
  project.use(mountedAt(projectMount), requireKeyOrSession(authenticator, deps.bus), requireOwnProject, jsonBody(projectBodyLimit(ceiling)));
  project.use(endpointRoutes({ bus: deps.bus, authenticator, auth: 'key', mount: projectMount, limitWrites: writes }));
  project.use(syncRoutes(deps.bus));
  project.use(eventRoutes(deps.bus, deps.feedHeartbeatMs, { ...DEFAULT_FEED_LIFETIME, recheckMs: deps.feedRecheckMs ?? DEFAULT_FEED_LIFETIME.recheckMs }));
  app.use(projectMount, project);
  app.use(webRoutes(deps.webRoot));

  app.use(routeNotFound);
  app.use(errorHandler(deps.logger));
  return { app, authenticator };
}
