import { describe, expect, it } from 'vitest';
import semver from 'semver';
import { versionOrderKey } from './plugin-version-order.ts';

const byteOrder = (a: string, b: string) => (Buffer.from(a) < Buffer.from(b) ? -1 : Buffer.from(a) > Buffer.from(b) ? 1 : 0);

describe('versionOrderKey', () => {
  it('orders semver.org precedence example, numbers by value and pre-releases below their release', () => {
    const ascending = [
      '0.9.99',
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-alpha-x',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.9.0',
      '1.10.0-0',
      '1.10.0',
      '1.10.2',
      '2.0.0',
      '10.0.0',
      '9007199254740990.0.0',
    ];
    const shuffled = [...ascending].reverse();
    expect(shuffled.sort((a, b) => byteOrder(versionOrderKey(a), versionOrderKey(b)))).toEqual(ascending);
  });

  it('agrees with the semver package on every pair of many generated versions', () => {
    const parts = ['0', '1', '2', '9', '10', '11', '100'];
    const prereleases = ['', '-0', '-1', '-10', '-a', '-A', '-a.1', '-a.10', '-a.b', '-a-b', '-rc.1', '-rc.1.0', '-rc.2', '-Z9', '-1a'];
    const versions = parts.flatMap((major) => parts.slice(0, 3).flatMap((minor) => prereleases.map((pre) => `${major}.${minor}.1${pre}`)));
    const keys = new Map(versions.map((v) => [v, versionOrderKey(v)]));
    const disagreements = versions.flatMap((a) =>
      versions.filter((b) => Math.sign(byteOrder(keys.get(a) ?? '', keys.get(b) ?? '')) !== semver.compare(a, b)).map((b) => `${a} vs ${b}`),
    );
    expect(disagreements).toEqual([]);
  });

  it('gives versions differing only in build metadata one key, as they have one precedence', () => {
    expect(versionOrderKey('1.2.3+build.7')).toBe(versionOrderKey('1.2.3'));
    expect(versionOrderKey('1.2.3-rc.1+x')).toBe(versionOrderKey('1.2.3-rc.1'));
  });
});
