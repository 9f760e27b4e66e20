import fc from 'fast-check';
import { authorizations, deviceIds, EXPIRIES, foreignCursors, foreignIds, foreignSignatures, foreignStorageKeys, isUuidText } from './fixture-values.ts';
import type { FuzzFixtures } from './fixtures.ts';
import { hostileJson, hostileNumber, hostileString, MALFORMED_ENCODINGS, PROTOTYPE_KEYS, RawJson, type JsonLike } from './hostile-values.ts';
import { addFieldAt, deleteAt, describeLocation, describeValue, growAt, isContainer, locations, replaceAt, type Location } from './json-body.ts';
import { describeTransport, transports, type Transport } from './transport.ts';

/**
 * One change to a valid request. `pick` chooses among the places the change applies to, modulo
 * their number, so the choice needs no knowledge of the request it will meet.
 */
export type Mutation =
  | { kind: 'none' }
  | { kind: 'number'; pick: number; value: number | RawJson }
  | { kind: 'string'; pick: number; value: string }
  | { kind: 'replace'; pick: number; value: JsonLike }
  /** A chosen field set to a chosen value: the named cases every run sends. */
  | { kind: 'set'; at: Location; value: JsonLike }
  | { kind: 'delete'; pick: number }
  | { kind: 'extra'; pick: number; field: string; value: JsonLike }
  | { kind: 'grow'; pick: number; length: number }
  | { kind: 'foreign'; pick: number; values: ForeignValues }
  | { kind: 'verbatim'; part: 'params' | 'query'; pick: number; text: string }
  | { kind: 'raw-body'; body: RawBody }
  | { kind: 'header'; name: string; value: string | undefined }
  | { kind: 'transport'; transport: Transport }
  | { kind: 'method'; method: string }
  | { kind: 'oversize' };

/** Bytes sent as the body in place of the valid one, or the valid one cut short or followed by garbage. */
type RawBody = RawJson | 'truncated' | 'trailing garbage';

/** A foreign value for each kind of field; the field a mutation lands on decides which is sent. */
interface ForeignValues {
  id: string;
  cursor: string;
  key: string;
  signature: string;
  expires: string;
}

/** A request as one JSON document, so one set of edits reaches its path parameters, query and body alike. */
export interface Parts {
  params: Record<string, JsonLike>;
  query: Record<string, JsonLike>;
  /** Absent for a request without a JSON body; RawJson for raw bytes (an object PUT). */
  body?: JsonLike;
}

/** The result of applying a mutation: the edited parts, and what the request carries beyond them. */
export interface Mutated {
  parts: Parts;
  description: string;
  rawBody?: RawBody;
  headers: Record<string, string | undefined>;
  transport?: Transport;
  method?: string;
  oversize?: boolean;
}

const RAW_BODIES = [
  '',
  ' ',
  '{',
  '{"a":',
  '[1,]',
  "{'a':1}",
  'nul',
  '\ufeff{}',
  '{"a":1}garbage',
  '{"a":1}{"b":2}',
  '\u0000',
  '"string"',
  '123',
  'true',
  'null',
  '[]',
  '{}',
  '{"message":"a","message":1}',
  '1'.repeat(10_000),
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"x":1}}}',
  'fileIds=1&note=x',
  '------fuzz\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n------fuzz--\r\n',
].map((text) => new RawJson(text, JSON.stringify(text.length > 40 ? `${text.slice(0, 30)}…(${text.length} chars)` : text)));
const UTF16_BODY = new RawJson(Buffer.from('\ufeff{"a":1}', 'utf16le'), 'UTF-16 "{"a":1}" with a BOM');

const FIELD_NAMES = [...PROTOTYPE_KEYS, 'extra', 'projectId', 'actor', 'userId', 'role'];
const IDEMPOTENCY_KEYS = ['', ' ', 'a b', 'x'.repeat(255), 'x'.repeat(256), '\u00e9', '\u00ff'.repeat(10), 'fuzz-1', 'key\tx'];
const REQUEST_IDS = ['', 'x'.repeat(129), 'a b', '\u00e9', '../x', 'fuzz'];
const RANGES = [
  'bytes=',
  'bytes=-',
  'bytes=0-0,1-1',
  'bytes=99999999999999999999-',
  'bytes=-0',
  'bytes=5-1',
  'items=0-1',
  'bytes=0-9007199254740993',
  'bytes=1e3-',
  'bytes=--1',
];
const MD5S = ['', 'x', 'AAAAAAAAAAAAAAAAAAAAAA==', 'not base64!', 'x'.repeat(100)];

export function mutations(f: FuzzFixtures): fc.Arbitrary<Mutation> {
  const pick = fc.nat();
  const foreignValues: fc.Arbitrary<ForeignValues> = fc.record({
    id: foreignIds(f),
    cursor: foreignCursors(f),
    key: foreignStorageKeys(f),
    signature: foreignSignatures(f),
    expires: fc.constantFrom(...EXPIRIES),
  });
  const headerValues = fc.oneof(
    fc.record({ name: fc.constant('authorization'), value: authorizations(f) }),
    fc.record({ name: fc.constant('x-device-id'), value: deviceIds(f) }),
    fc.record({ name: fc.constant('x-idempotency-key'), value: fc.constantFrom(...IDEMPOTENCY_KEYS) }),
    fc.record({ name: fc.constant('x-request-id'), value: fc.constantFrom(...REQUEST_IDS) }),
    fc.record({ name: fc.constant('range'), value: fc.constantFrom(...RANGES) }),
    fc.record({ name: fc.constant('content-md5'), value: fc.option(fc.constantFrom(...MD5S), { nil: undefined }) }),
    fc.record({ name: fc.constant('accept'), value: fc.constantFrom('text/html', 'application/xml', '*/*', '') }),
  );
  // Weights in thousandths: a 17 MB body is sent about once per thousand requests.
  return fc.oneof(
    { weight: 100, arbitrary: fc.constant<Mutation>({ kind: 'none' }) },
    { weight: 150, arbitrary: fc.tuple(pick, hostileNumber).map(([p, value]): Mutation => ({ kind: 'number', pick: p, value })) },
    { weight: 130, arbitrary: fc.tuple(pick, hostileString).map(([p, value]): Mutation => ({ kind: 'string', pick: p, value })) },
    { weight: 90, arbitrary: fc.tuple(pick, hostileJson).map(([p, value]): Mutation => ({ kind: 'replace', pick: p, value })) },
    { weight: 40, arbitrary: pick.map((p): Mutation => ({ kind: 'delete', pick: p })) },
    {
      weight: 40,
      arbitrary: fc
        .tuple(pick, fc.oneof(fc.constantFrom(...FIELD_NAMES), hostileString), hostileJson)
        .map(([p, field, value]): Mutation => ({ kind: 'extra', pick: p, field, value })),
    },
    { weight: 20, arbitrary: fc.tuple(pick, fc.constantFrom(2, 1001, 10_001, 25_001)).map(([p, length]): Mutation => ({ kind: 'grow', pick: p, length })) },
    { weight: 80, arbitrary: fc.tuple(pick, foreignValues).map(([p, values]): Mutation => ({ kind: 'foreign', pick: p, values })) },
    {
      weight: 60,
      arbitrary: fc
        .tuple(fc.constantFrom('params' as const, 'query' as const), pick, fc.constantFrom(...MALFORMED_ENCODINGS))
        .map(([part, p, text]): Mutation => ({ kind: 'verbatim', part, pick: p, text })),
    },
    {
      weight: 40,
      arbitrary: fc.constantFrom<RawBody>(...RAW_BODIES, UTF16_BODY, 'truncated', 'trailing garbage').map((body): Mutation => ({ kind: 'raw-body', body })),
    },
    { weight: 100, arbitrary: headerValues.map((h): Mutation => ({ kind: 'header', ...h })) },
    { weight: 80, arbitrary: transports.map((transport): Mutation => ({ kind: 'transport', transport })) },
    {
      weight: 20,
      arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD').map((method): Mutation => ({ kind: 'method', method })),
    },
    { weight: 1, arbitrary: fc.constant<Mutation>({ kind: 'oversize' }) },
  );
}

const inBody = (at: Location) => at[0] === 'body';
/** Where each kind of edit applies; the parts' own containers (`params`, `query`) stay. */
const TARGETS = {
  number: (v: JsonLike, at: Location) => (inBody(at) && typeof v === 'number') || (at[0] === 'query' && typeof v === 'string' && /^\d+$/.test(v)),
  string: (v: JsonLike) => typeof v === 'string',
  replace: (_v: JsonLike, at: Location) => at.length >= 2 || (at.length === 1 && inBody(at)),
  delete: (_v: JsonLike, at: Location) => at.length >= 2,
  extra: (v: JsonLike, at: Location) => (inBody(at) && isContainer(v)) || (at.length === 1 && at[0] === 'query'),
  grow: (v: JsonLike, at: Location) => inBody(at) && Array.isArray(v),
  foreign: (v: JsonLike, at: Location) => typeof v === 'string' && (isUuidText(v) || ['cursor', 'key', 'signature', 'expires'].includes(String(at.at(-1)))),
};

function target(document: JsonLike, kind: keyof typeof TARGETS, pick: number): Location | undefined {
  const found = locations(document, TARGETS[kind]);
  return found.length === 0 ? undefined : found[pick % found.length];
}

/** The foreign value for the field it replaces: a uuid field gets another id. */
function foreignValue(values: ForeignValues, field: string): string {
  return field === 'cursor' || field === 'key' || field === 'signature' || field === 'expires' ? values[field] : values.id;
}

export function applyMutation(parts: Parts, mutation: Mutation): Mutated {
  const document = parts as unknown as JsonLike;
  const result = (edited: JsonLike, description: string): Mutated => ({ parts: edited as unknown as Parts, description, headers: {} });
  const edit = (kind: keyof typeof TARGETS, pick: number, apply: (at: Location) => Mutated): Mutated => {
    const at = target(document, kind, pick);
    return at ? apply(at) : { parts, description: `valid (nothing to ${kind})`, headers: {} };
  };
  switch (mutation.kind) {
    case 'none':
      return { parts, description: 'valid', headers: {} };
    case 'number':
    case 'string':
    case 'replace':
      return edit(mutation.kind, mutation.pick, (at) =>
        result(replaceAt(document, at, mutation.value), `${describeLocation(at)} = ${describeValue(mutation.value)}`),
      );
    case 'set':
      return result(replaceAt(document, mutation.at, mutation.value), `${describeLocation(mutation.at)} = ${describeValue(mutation.value)}`);
    case 'delete':
      return edit('delete', mutation.pick, (at) => result(deleteAt(document, at), `without ${describeLocation(at)}`));
    case 'extra':
      return edit('extra', mutation.pick, (at) =>
        result(
          addFieldAt(document, at, mutation.field, mutation.value),
          `${describeLocation(at)} + ${JSON.stringify(mutation.field)}: ${describeValue(mutation.value)}`,
        ),
      );
    case 'grow':
      return edit('grow', mutation.pick, (at) =>
        result(growAt(document, at, mutation.length), `${describeLocation(at)} repeated to ${mutation.length} entries`),
      );
    case 'foreign':
      return edit('foreign', mutation.pick, (at) => {
        const value = foreignValue(mutation.values, String(at.at(-1)));
        return result(replaceAt(document, at, value), `${describeLocation(at)} = ${describeValue(value)} (another's or malformed)`);
      });
    case 'verbatim': {
      const names = Object.keys(parts[mutation.part]);
      const name = names.length > 0 ? names[mutation.pick % names.length] : 'x';
      const at = [mutation.part, name];
      return result(replaceAt(document, at, new RawJson(mutation.text, mutation.text)), `${describeLocation(at)} sent verbatim as ${mutation.text}`);
    }
    case 'raw-body':
      return {
        parts,
        rawBody: mutation.body,
        description: `body = ${mutation.body instanceof RawJson ? mutation.body.label : `the valid body, ${mutation.body}`}`,
        headers: {},
      };
    case 'header':
      return {
        parts,
        description: mutation.value === undefined ? `without ${mutation.name}` : `${mutation.name}: ${describeValue(mutation.value)}`,
        headers: { [mutation.name]: mutation.value },
      };
    case 'transport':
      return { parts, transport: mutation.transport, description: describeTransport(mutation.transport), headers: {} };
    case 'method':
      return { parts, method: mutation.method, description: `as ${mutation.method}`, headers: {} };
    case 'oversize':
      return { parts, oversize: true, description: 'a JSON body over the 16 MB limit', headers: {} };
  }
}
