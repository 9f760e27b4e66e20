import fc from 'fast-check';

/**
 * JSON text put into a body verbatim: numbers JSON.stringify cannot write (`1e999` parses to
 * Infinity), strings holding bytes that are not UTF-8, and nesting too deep to build as objects.
 */
export class RawJson {
  readonly bytes: Buffer;
  readonly label: string;
  constructor(bytes: Buffer | string, label: string) {
    this.bytes = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
    this.label = label;
  }
}

export type JsonLike = null | boolean | number | string | RawJson | JsonLike[] | { [key: string]: JsonLike };

/** The integers every id, version, size and limit column must survive (int4, 2^32, JS safe range, 5 GiB + 1). */
export const BOUNDARY_INTEGERS = [
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53,
  5_368_709_121,
  5_368_709_120,
  -1,
  0,
  1,
  -(2 ** 31),
  -(2 ** 31) - 1,
  2 ** 63,
  2 ** 64,
  1e308,
];
const FRACTIONS = [0.5, 1.5, -0.5, 1e-7, 2_147_483_647.5, Number.MIN_VALUE, Number.EPSILON];
const RAW_NUMBERS = ['1e999', '-1e999', '-0', '1.0', '1E2', '9007199254740993', '123456789012345678901234567890', '0.0000000000000000000000001e-400'];

/** Strings a number field might be sent as, and numbers a string field might. */
export const NUMERIC_STRINGS = [
  '2147483648',
  '2147483647',
  '9007199254740993',
  '5368709121',
  '-1',
  '0',
  '1.5',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e309',
  '0x10',
  '1_000',
  ' 1',
  '1 ',
  '+1',
  '01',
  '1,5',
  'null',
  'undefined',
  'true',
];

const CONTROL_CHARACTERS = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).concat(['\u007f', '\u0085', '\u2028', '\u2029']);
const LONG_STRINGS = [256, 1025, 10_001, 100_000, 1_000_001].map((n) => 'a'.repeat(n));

/** Paths and keys that try to leave where they belong. */
export const TRAVERSALS = [
  '..',
  '.',
  '../x',
  '../../../../etc/passwd',
  '/etc/passwd',
  '/',
  '//',
  'a//b',
  'a/./b',
  'a/../../b',
  './a',
  'a/',
  'C:\\Windows\\win.ini',
  '..\\..\\x',
  '\\\\server\\share\\x',
  'file:///etc/passwd',
  '~/.ssh/id_rsa',
  '%2e%2e%2f%2e%2e%2fetc',
  '..%2f..%2f',
  'con',
  'NUL',
  'aux.txt',
];

const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'a\ud800b',
  '\udc00\ud800',
  '\ufeff',
  '\uffff',
  '\u{10ffff}',
  '\u202e',
  '\u200b',
  'e\u0301',
  'é',
  'ﬁ',
  'İ',
  'ß',
  '😀',
  'a\nb',
  '\r\n',
  "' OR '1'='1",
  "'; DROP TABLE files; --",
  '$(reboot)',
  '${jndi:ldap://x/a}',
  '<script>alert(1)</script>',
  '{{7*7}}',
  '%s%n%x',
  'javascript:alert(1)',
  'http://169.254.169.254/latest/meta-data/',
  `https://example.com/${'a'.repeat(3000)}`,
  'é'.repeat(128),
  'x/'.repeat(600),
  '%00',
  '%u002e',
  ...CONTROL_CHARACTERS,
  ...TRAVERSALS,
  ...NUMERIC_STRINGS,
  ...LONG_STRINGS,
];

/** Characters that break parsers and storage, for building random strings out of. */
const NASTY_UNITS = fc.constantFrom(
  'a',
  'Z',
  '0',
  '/',
  '.',
  '\\',
  '%',
  ' ',
  '-',
  '\u0000',
  '\u0001',
  '\u001f',
  '\ud800',
  '\udc00',
  '\u0301',
  'é',
  '😀',
  '"',
  "'",
);

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: NASTY_UNITS, minLength: 1, maxLength: 30 }) },
);

export const hostileNumber: fc.Arbitrary<number | RawJson> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...BOUNDARY_INTEGERS) },
  { weight: 2, arbitrary: fc.constantFrom(...FRACTIONS) },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 2, arbitrary: fc.constantFrom(...RAW_NUMBERS.map((n) => new RawJson(n, n))) },
);

/** Arrays or objects nested far deeper than any body of the API, written as text (no recursion to build or print them). */
export const DEEP_NESTING = [10_000, 100_000].flatMap((depth) => [
  new RawJson('['.repeat(depth) + ']'.repeat(depth), `[…] nested ${depth} deep`),
  new RawJson('{"a":'.repeat(depth) + '1' + '}'.repeat(depth), `{"a":…} nested ${depth} deep`),
]);

/** JSON strings whose bytes are not valid UTF-8: overlong dots, a lone continuation byte, a truncated sequence. */
const INVALID_UTF8_STRINGS = [[0xc0, 0xae, 0xc0, 0xae, 0x2f], [0x80], [0xe0, 0xa4], [0xff, 0xfe], [0xed, 0xa0, 0x80]].map(
  (bytes) => new RawJson(Buffer.concat([Buffer.from('"'), Buffer.from(bytes), Buffer.from('"')]), `"<bytes ${Buffer.from(bytes).toString('hex')}>"`),
);

/** Keys that reach an object's prototype when a parser or a spread treats them as ordinary. */
export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', ''];

/** An object with an own `__proto__` key, as JSON.parse builds it (an object literal would set its prototype instead). */
export function objectWith(entries: readonly (readonly [string, JsonLike])[]): { [key: string]: JsonLike } {
  const object: { [key: string]: JsonLike } = Object.create(null) as { [key: string]: JsonLike };
  for (const [key, value] of entries) object[key] = value;
  return object;
}

const PROTOTYPE_POLLUTERS: JsonLike[] = [
  objectWith([
    [
      '__proto__',
      objectWith([
        ['polluted', true],
        ['isAdmin', true],
      ]),
    ],
  ]),
  objectWith([['constructor', objectWith([['prototype', objectWith([['polluted', true]])]])]]),
];

export const hostileJson: fc.Arbitrary<JsonLike> = fc.oneof(
  { weight: 8, arbitrary: hostileString },
  { weight: 6, arbitrary: hostileNumber },
  { weight: 3, arbitrary: fc.constantFrom<JsonLike>(null, true, false, [], {}, [null], { a: 1 }, ['x'], [[[]]], [1, 'a', null]) },
  { weight: 1, arbitrary: fc.constantFrom(...DEEP_NESTING) },
  { weight: 1, arbitrary: fc.constantFrom(...INVALID_UTF8_STRINGS) },
  { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_POLLUTERS) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonLike> },
);

/** The UTF-8 bytes of a string (or the bytes given), percent-encoded; a lone surrogate goes as U+FFFD's bytes, as a browser would send it. */
export function percentEncode(text: string | Buffer): string {
  return [...(typeof text === 'string' ? Buffer.from(text, 'utf8') : text)]
    .map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
}

/** Path or query text sent verbatim: percent-encodings that do not decode, overlong UTF-8, IIS-style `%u`. */
export const MALFORMED_ENCODINGS = [
  '%ZZ',
  '%',
  '%E0%A4%A',
  '%u002e',
  '%C0%AE%C0%AE',
  '%ff',
  '%00',
  'a%00b',
  '%2e%2e',
  '%2e',
  '%2F',
  'a%2Fb',
  '%25',
  '%%',
  '%c0%af',
  '%ed%a0%80',
  '%F4%90%80%80',
  '..',
  '.',
];
