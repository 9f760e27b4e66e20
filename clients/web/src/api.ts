/** The dashboard's one way to the API: same-origin fetch with the session cookie and the CSRF token. */

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly body: Record<string, unknown>;

  constructor(status: number, body: Record<string, unknown>) {
    super(typeof body.message === 'string' ? body.message : `Request failed (${status})`);
    this.status = status;
    this.code = typeof body.code === 'string' ? body.code : 'unknown';
    this.body = body;
  }
}

/**
 * The session's CSRF token, which goes out on every write. The server hands it over once, at
 * sign-in, in the lode_csrf cookie (the session cookie itself is out of scripts' reach) and keeps
 * only its hash: read from the cookie at each write, it survives reloads and serves every tab.
 */
function csrfToken(): string | undefined {
  return /(?:^|;\s*)lode_csrf=([\w-]+)/.exec(document.cookie)?.[1];
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const csrf = method === 'GET' ? undefined : csrfToken();
  if (csrf) headers['x-csrf-token'] = csrf;
  const response = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  const parsed: unknown = text ? JSON.parse(text) : {};
  if (!response.ok) throw new ApiError(response.status, (parsed ?? {}) as Record<string, unknown>);
  return parsed as T;
}

export const get = <T>(path: string) => api<T>('GET', path);

/** A path with its query, leaving out empty values. */
export function withQuery(path: string, query: Record<string, string | number | undefined | null>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

export const projectPath = (projectId: string) => `/api/v1/projects/${encodeURIComponent(projectId)}`;
