import { RawJson, type JsonLike } from './hostile-values.ts';

/** Where a value sits in a body: keys and indexes from the root. */
export type Location = readonly (string | number)[];

/**
 * The body's bytes. Own keys only, so an own `__proto__` key is written like any other; RawJson
 * goes in verbatim. Recursive, but RawJson carries the deep nestings, so bodies built here are shallow.
 * Text is gathered as one string between RawJson pieces: a 25,001-entry array takes milliseconds.
 */
export function serialize(value: JsonLike): Buffer {
  const parts: Buffer[] = [];
  let text = '';
  const write = (v: JsonLike): void => {
    if (v instanceof RawJson) {
      parts.push(Buffer.from(text), v.bytes);
      text = '';
    } else if (Array.isArray(v)) {
      text += '[';
      v.forEach((item, i) => {
        if (i > 0) text += ',';
        write(item);
      });
      text += ']';
    } else if (v !== null && typeof v === 'object') {
      text += '{';
      Object.keys(v).forEach((key, i) => {
        text += `${i > 0 ? ',' : ''}${JSON.stringify(key)}:`;
        write(v[key]);
      });
      text += '}';
    } else text += JSON.stringify(v);
  };
  write(value);
  parts.push(Buffer.from(text));
  return Buffer.concat(parts);
}

export function isContainer(value: JsonLike): value is JsonLike[] | { [key: string]: JsonLike } {
  return typeof value === 'object' && value !== null && !(value instanceof RawJson);
}

/** Every location in a (shallow, valid) body whose value passes `keep`, the root included, in document order. */
export function locations(body: JsonLike, keep: (value: JsonLike, at: Location) => boolean): Location[] {
  const found: Location[] = [];
  const visit = (value: JsonLike, at: Location): void => {
    if (keep(value, at)) found.push(at);
    if (Array.isArray(value)) value.forEach((item, i) => visit(item, [...at, i]));
    else if (isContainer(value)) for (const key of Object.keys(value)) visit(value[key], [...at, key]);
  };
  visit(body, []);
  return found;
}

/** A copy of the body with `change` applied to the container holding `at`; the root sits in a holder, so it is changed like any value. */
function edit(body: JsonLike, at: Location, change: (parent: Record<string | number, JsonLike>, key: string | number) => void): JsonLike {
  const copy = copyJson(body);
  const holder: { root: JsonLike } = { root: copy };
  let parent = holder as unknown as Record<string | number, JsonLike>;
  let key: string | number = 'root';
  for (const step of at) {
    parent = parent[key] as unknown as Record<string | number, JsonLike>;
    key = step;
  }
  change(parent, key);
  return holder.root;
}

/** Deep copy that keeps own `__proto__` keys and RawJson values (structuredClone would drop the class). */
function copyJson(value: JsonLike): JsonLike {
  if (Array.isArray(value)) return value.map(copyJson);
  if (!isContainer(value)) return value;
  const copy: { [key: string]: JsonLike } = Object.create(null) as { [key: string]: JsonLike };
  for (const key of Object.keys(value)) copy[key] = copyJson(value[key]);
  return copy;
}

export function replaceAt(body: JsonLike, at: Location, value: JsonLike): JsonLike {
  return edit(body, at, (parent, key) => {
    parent[key] = value;
  });
}

/** Removes an object's field or an array's element; the root stays (a body with nothing is `replaceAt` with a raw empty body). */
export function deleteAt(body: JsonLike, at: Location): JsonLike {
  if (at.length === 0) return body;
  return edit(body, at, (parent, key) => {
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  });
}

/** Adds a field to the object at `at`; an array gets the value appended, a scalar is wrapped. */
export function addFieldAt(body: JsonLike, at: Location, field: string, value: JsonLike): JsonLike {
  return edit(body, at, (parent, key) => {
    const target = parent[key];
    if (Array.isArray(target)) target.push(value);
    else if (isContainer(target)) target[field] = value;
    else parent[key] = { [field]: value, value: target };
  });
}

/** The array at `at` repeated until it has `length` elements: batch limits plus one, and duplicates. */
export function growAt(body: JsonLike, at: Location, length: number): JsonLike {
  return edit(body, at, (parent, key) => {
    const target = parent[key];
    const items = Array.isArray(target) && target.length > 0 ? target : [target];
    parent[key] = Array.from({ length }, (_, i) => items[i % items.length]);
  });
}

/** A location as a client would name the field: `fileVersions.0.version`, or `(body)` for the root. */
export function describeLocation(at: Location): string {
  return at.length === 0 ? '(body)' : at.join('.');
}

/** A value short enough for a report line: long strings and bodies are cut, with their length. */
export function describeValue(value: JsonLike): string {
  if (value instanceof RawJson) return value.label;
  const text = typeof value === 'string' ? JSON.stringify(value) : String(serialize(value));
  return text.length > 80 ? `${text.slice(0, 60)}…(${text.length} chars)` : text;
}
