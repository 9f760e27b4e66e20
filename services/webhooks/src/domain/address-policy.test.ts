import { describe, expect, it } from 'vitest';
import { isPublicAddress, literalAddress } from './address-policy.ts';

describe('isPublicAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'RFC 1918'],
    ['172.20.0.1', 'RFC 1918'],
    ['192.168.1.1', 'RFC 1918'],
    ['169.254.169.254', 'link-local, cloud metadata'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.254', 'CGNAT'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['0.0.0.0', 'this network'],
    ['0.1.2.3', 'this network'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.88.99.1', '6to4 relay anycast'],
    ['224.0.0.251', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['::a00:1', 'IPv4-compatible 10.0.0.1'],
    ['fd00::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hexadecimal'],
    ['::ffff:10.0.0.1', 'IPv4-mapped RFC 1918'],
    ['64:ff9b::10.0.0.1', 'NAT64 of RFC 1918'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of cloud metadata'],
    ['64:ff9b::7f00:1', 'NAT64 of loopback'],
    ['64:ff9b::', 'NAT64 of 0.0.0.0'],
    ['64:ff9b:1::808:808', 'local-use NAT64'],
    ['2002:a00:1::1', '6to4'],
    ['2002:808:808::1', '6to4'],
    ['2001:0:4136:e378::1', 'Teredo'],
    ['100::1', 'discard-only'],
    ['192.0.2.1', 'documentation TEST-NET-1'],
    ['198.51.100.20', 'documentation TEST-NET-2'],
    ['203.0.113.10', 'documentation TEST-NET-3'],
    ['2001:db8::1', 'documentation'],
    ['2001:db8:ffff:ffff::1', 'documentation'],
    ['fec0::1', 'site-local'],
    ['feff::1', 'site-local'],
    ['::ffff:203.0.113.10', 'IPv4-mapped documentation'],
    ['::ffff:c000:201', 'IPv4-mapped documentation, hexadecimal'],
    ['0:0:0:0:0:ffff:a00:1', 'IPv4-mapped RFC 1918, uncompressed'],
    ['::FFFF:192.168.0.1', 'IPv4-mapped RFC 1918, upper case'],
    ['::ffff:0:0', 'IPv4-mapped this network'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped cloud metadata, hexadecimal'],
    ['not-an-ip', 'not an address'],
  ])('refuses %s (%s)', (address) => expect(isPublicAddress(address)).toBe(false));

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '198.20.0.1',
    '223.255.255.255',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '64:ff9b::8.8.4.4',
    '::ffff:808:808',
    '0:0:0:0:0:ffff:808:808',
    '192.0.3.1',
    '198.51.101.1',
    '203.0.114.1',
    '2001:db9::1',
    '2a00::1',
  ])('allows %s', (address) => expect(isPublicAddress(address)).toBe(true));
});

describe('literalAddress', () => {
  it('reads IPv4 and bracketed IPv6 hosts, not names', () => {
    expect(literalAddress('127.0.0.1')).toBe('127.0.0.1');
    expect(literalAddress('[::1]')).toBe('::1');
    expect(literalAddress('localhost')).toBeUndefined();
  });
});
