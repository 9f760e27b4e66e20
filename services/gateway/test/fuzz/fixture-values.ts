import fc from 'fast-check';
import type { FuzzFixtures } from './fixtures.ts';

/** Values built from the seeded ids: other projects' ids, cursors and keys, and near-misses of our own. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuidText = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);

function tamper(text: string): string[] {
  const flipped = text.slice(0, -2) + (text.at(-2) === 'A' ? 'B' : 'A') + text.slice(-1);
  return [flipped, text.slice(0, Math.floor(text.length / 2)), `${text}x`, text.toUpperCase(), `${text}=`, Buffer.from(text).toString('base64')];
}

/** Ids a uuid field may name instead of the right one: another project's, another kind's, or malformed. */
export function foreignIds(f: FuzzFixtures): fc.Arbitrary<string> {
  const c = f.control;
  const own = f.project.files[0].fileId;
  const known = [
    c.projectId,
    c.orgId,
    c.userId,
    ...c.files.map((x) => x.fileId),
    ...c.commitIds,
    f.project.projectId,
    f.project.orgId,
    f.project.userId,
    ...f.project.commitIds,
    ...f.admin.orgIds,
    ...f.admin.projectIds,
    ...f.admin.userIds,
    ...f.admin.keyIds,
  ];
  const malformed = [
    own.toUpperCase(),
    `{${own}}`,
    own.replaceAll('-', ''),
    own.slice(1),
    `${own}0`,
    `${own}\n`,
    ` ${own}`,
    `${own.slice(0, -1)}g`,
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
    '00000000-0000-0000-0000-00000000000',
    'urn:uuid:' + own,
  ];
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...known) },
    { weight: 2, arbitrary: fc.constantFrom(...malformed) },
    { weight: 1, arbitrary: fc.uuid() },
  );
}

/** Cursors of other endpoints and projects, and tampered ones. */
export function foreignCursors(f: FuzzFixtures): fc.Arbitrary<string> {
  const cursors = [f.control.versionsCursor, f.control.locksCursor, f.project.versionsCursor, f.project.locksCursor, f.admin.cursor];
  return fc.constantFrom(...cursors, ...cursors.flatMap(tamper), 'eyJhIjoxfQ', 'null', '.', 'x'.repeat(5000));
}

/** Object keys beside and outside the project's own: another project's objects, traversals to them and out of the blob directory. */
export function foreignStorageKeys(f: FuzzFixtures): fc.Arbitrary<string> {
  const mine = f.project.downloads[0].key;
  const theirs = f.control.downloads[0].key;
  return fc.constantFrom(
    theirs,
    `${mine}/../../../${theirs.split('/').slice(2).join('/')}`,
    `p/${f.project.projectId}/u/../../${f.control.projectId}/u/x`,
    `${mine}.sha256`,
    `${mine}/`,
    `${mine}/x`,
    '../../../../etc/passwd',
    '../incoming/x',
    'p/../../admin-token',
    `/${mine}`,
    mine.toUpperCase(),
    `${mine}%00`,
    '',
  );
}

/** Signatures and expiries of other URLs, stale, or malformed. */
export function foreignSignatures(f: FuzzFixtures): fc.Arbitrary<string> {
  const theirs = f.control.downloads[0].query.signature;
  return fc.constantFrom(theirs, ...tamper(f.project.downloads[0].query.signature), '', '0', 'x'.repeat(4000));
}
export const EXPIRIES = ['0', '-1', '1', '99999999999', '1e10', '9007199254740993', 'NaN', 'Infinity', '', '1.5', ' 1'];

/** Authorization values: missing, malformed, other kinds of credentials, another project's key, a revoked key. */
export function authorizations(f: FuzzFixtures): fc.Arbitrary<string | undefined> {
  const key = f.project.key;
  return fc.constantFrom(
    undefined,
    '',
    'Bearer',
    'Bearer ',
    `bearer ${key}`,
    `Bearer  ${key}`,
    `Bearer ${key} x`,
    `Basic ${Buffer.from('user:pass').toString('base64')}`,
    `Bearer lode_${'a'.repeat(40)}`,
    `Bearer lode_${'A'.repeat(39)}`,
    `Bearer lode_${'a'.repeat(41)}`,
    `Bearer ${f.control.key}`,
    `Bearer ${f.admin.token}`,
    `Bearer ${key}`,
    `Bearer ${f.admin.revokedKey}`,
    `Bearer ${'x'.repeat(10_000)}`,
    'Bearer \u00ff\u00fe',
    `Bearer ${key.slice(0, -1)}`,
    `Bearer ${key.toUpperCase()}`,
    `Bearer ${key}\u00e9`,
    `Token ${key}`,
    key,
  );
}

/** X-Device-Id values: missing, empty, too long, not ASCII, another device. */
export function deviceIds(f: FuzzFixtures): fc.Arbitrary<string | undefined> {
  const mine = f.project.deviceId;
  return fc.constantFrom(
    undefined,
    '',
    ' ',
    'x'.repeat(200),
    'x'.repeat(201),
    'x'.repeat(8000),
    '\u00e9\u00ff',
    'other-device',
    `${mine} `,
    `${mine}\t`,
    mine.toUpperCase(),
    `${mine}\u0080`,
  );
}
