import { createRequire } from 'node:module';
import path from 'node:path';
import express, { Router, type RequestHandler } from 'express';
import { forPaths } from '../http/route-paths.ts';
import { buildOpenApiDocument } from '../openapi/document.ts';

export const OPENAPI_PATH = '/api/v1/openapi.json';
const ASSETS_PATH = '/docs/assets';
const ASSETS_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * Swagger UI's own files, served from node_modules: the page must work with no internet, so nothing
 * is loaded from a CDN. The initializer is a file of ours rather than an inline script, so a strict
 * Content-Security-Policy in front of the gateway still lets it run.
 */
const page =
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Lode API reference</title>` +
  `<meta name="viewport" content="width=device-width, initial-scale=1">` +
  `<link rel="stylesheet" href="${ASSETS_PATH}/swagger-ui.css">` +
  // Named, or the browser asks for /favicon.ico, which is no route: a 404 in every visitor's console.
  `<link rel="icon" type="image/png" sizes="32x32" href="${ASSETS_PATH}/favicon-32x32.png"></head>` +
  `<body><noscript>The OpenAPI 3.1 description is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript><div id="swagger-ui"></div>` +
  `<script src="${ASSETS_PATH}/swagger-ui-bundle.js"></script>` +
  `<script src="/docs/init.js"></script></body></html>`;

/**
 * The page runs only this server's scripts and styles (Swagger UI styles some elements inline), calls
 * only this server, and no other site may frame it (clickjacking of "Try it out").
 */
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
};

const initializer = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(OPENAPI_PATH)}, dom_id: '#swagger-ui', deepLinking: true });\n`;

/**
 * GET /api/v1/openapi.json (no key needed) and the browsable reference at /docs. The description is
 * built on first use, not at start, and kept: it only changes with the code.
 */
export function docsRoutes(): RequestHandler {
  const router = Router();
  let document: ReturnType<typeof buildOpenApiDocument> | undefined;
  router.get(OPENAPI_PATH, (_req, res) => {
    document ??= buildOpenApiDocument();
    res.json(document);
  });
  router.get('/docs', (_req, res) => {
    res.set(PAGE_HEADERS).type('html').send(page);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('js').send(initializer);
  });
  router.use(ASSETS_PATH, express.static(ASSETS_DIR, { index: false, maxAge: '1d' }));
  return forPaths([OPENAPI_PATH, '/docs', '/docs/init.js', `${ASSETS_PATH}/*`], router);
}
