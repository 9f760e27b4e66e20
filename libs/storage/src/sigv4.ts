import { createHash, createHmac } from 'node:crypto';

export interface SigV4Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
}

export interface PresignRequest {
  method: 'GET' | 'PUT';
  protocol: string; // 'http:' | 'https:'
  /** host[:port], exactly as the client will send it in the Host header. */
  host: string;
  /** Path with each segment already safe (our keys and bucket names need no escaping). */
  path: string;
  /** Extra headers to sign, lowercase names (host is always signed). */
  headers: Record<string, string>;
  /** Query parameters of the URL besides SigV4's own (S3's `response-*` overrides), signed with it. */
  query?: Record<string, string>;
  expiresIn: number;
  now?: Date;
}

/**
 * AWS Signature V4 for query-string presigned S3 URLs, as the SDK's S3RequestPresigner computes
 * them (pinned by a unit test comparing both), without its per-call middleware and async overhead:
 * one SHA-256 and one HMAC per URL, the signing key cached per day.
 */
export class QueryPresigner {
  readonly #credentials: SigV4Credentials;
  readonly #region: string;
  readonly #service: string;
  #signingKey: { day: string; key: Buffer } | undefined;
  // Within one second, every URL of a batch shares its date, expiry and signed header names: the
  // canonical query is built once for them all.
  #queryCache: { id: string; query: string } | undefined;

  constructor(credentials: SigV4Credentials, region: string, service = 's3') {
    this.#credentials = credentials;
    this.#region = region;
    this.#service = service;
  }

  presign(request: PresignRequest): string {
    const amzDate = (request.now ?? new Date()).toISOString().replace(/[-:]|\.\d{3}/g, '');
    const day = amzDate.slice(0, 8);
    const scope = `${day}/${this.#region}/${this.#service}/aws4_request`;
    const headers: Record<string, string> = { ...request.headers, host: request.host };
    const names = Object.keys(headers).sort();
    const signedHeaders = names.join(';');
    const signing = this.#canonicalQuery(amzDate, scope, request.expiresIn, signedHeaders);
    const canonicalQuery = request.query ? withParameters(signing, request.query) : signing;
    const canonicalHeaders = names.map((n) => `${n}:${headers[n].trim()}\n`).join('');
    const canonicalRequest = [request.method, request.path, canonicalQuery, canonicalHeaders, signedHeaders, 'UNSIGNED-PAYLOAD'].join('\n');
    const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
    const signature = createHmac('sha256', this.#keyFor(day)).update(stringToSign).digest('hex');
    return `${request.protocol}//${request.host}${request.path}?${canonicalQuery}&X-Amz-Signature=${signature}`;
  }

  #canonicalQuery(amzDate: string, scope: string, expiresIn: number, signedHeaders: string): string {
    const id = `${amzDate}|${expiresIn}|${signedHeaders}`;
    if (this.#queryCache?.id === id) return this.#queryCache.query;
    const query: Record<string, string> = {
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD',
      'X-Amz-Credential': `${this.#credentials.accessKeyId}/${scope}`,
      'X-Amz-Date': amzDate,
      'X-Amz-Expires': String(expiresIn),
      'X-Amz-SignedHeaders': signedHeaders,
    };
    if (this.#credentials.sessionToken) query['X-Amz-Security-Token'] = this.#credentials.sessionToken;
    const canonical = Object.keys(query)
      .sort()
      .map((k) => `${rfc3986(k)}=${rfc3986(query[k])}`)
      .join('&');
    this.#queryCache = { id, query: canonical };
    return canonical;
  }

  #keyFor(day: string): Buffer {
    if (this.#signingKey?.day !== day) {
      const kDate = createHmac('sha256', `AWS4${this.#credentials.secretAccessKey}`).update(day).digest();
      const kRegion = createHmac('sha256', kDate).update(this.#region).digest();
      const kService = createHmac('sha256', kRegion).update(this.#service).digest();
      this.#signingKey = { day, key: createHmac('sha256', kService).update('aws4_request').digest() };
    }
    return this.#signingKey.key;
  }
}

/** A canonical query with more parameters, still sorted by encoded name as SigV4 requires. */
function withParameters(canonical: string, parameters: Record<string, string>): string {
  const pairs = Object.entries(parameters).map(([name, value]) => [rfc3986(name), `${rfc3986(name)}=${rfc3986(value)}`] as const);
  const signing = canonical.split('&').map((pair) => [pair.slice(0, pair.indexOf('=')), pair] as const);
  return [...signing, ...pairs]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, pair]) => pair)
    .join('&');
}

function rfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
