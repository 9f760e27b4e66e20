import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook must not reach unless private targets are allowed: the cluster's own network
 * and the machine itself (RFC 1918, loopback, link-local with cloud metadata, CGNAT, unique-local,
 * the deprecated site-local fec0::/10 that older stacks still route internally, unspecified,
 * multicast and reserved ranges), the documentation ranges (never a real receiver, so an address in
 * them is a probe or a mistake), and the IPv6 ranges that tunnel to an IPv4 address chosen by
 * whoever builds the address (6to4, Teredo, the local-use NAT64 prefix). IPv4-mapped IPv6 addresses
 * are judged by the IPv4 address they carry (isPublicAddress).
 */
const refused = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  refused.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 32],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  refused.addSubnet(network, prefix, 'ipv6');
}

/**
 * The well-known NAT64 prefix (RFC 6052): the gateway connects to the IPv4 address in the low 32 bits.
 * Judged by that address rather than refused whole: on an IPv6-only cluster with DNS64, every public
 * IPv4-only receiver resolves into it.
 */
const nat64 = new BlockList();
nat64.addSubnet('64:ff9b::', 96, 'ipv6');

/**
 * IPv4-mapped addresses (::ffff:0:0/96): a socket connects to the IPv4 address in the low 32 bits,
 * so that address is what is judged, whatever the spelling (dotted, hexadecimal, uncompressed).
 */
const mappedV4 = new BlockList();
mappedV4.addSubnet('::ffff:0:0', 96, 'ipv6');

/** Whether a webhook may connect to this resolved IP address. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6 && (mappedV4.check(address, 'ipv6') || nat64.check(address, 'ipv6'))) return isPublicAddress(lowIPv4(address));
  return !refused.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The IPv4 address in an IPv6 address's low 32 bits. The WHATWG URL parser writes IPv6 in its
 * canonical form (RFC 5952: hexadecimal groups, the longest zero run compressed), so the last two
 * groups are those bits; within 64:ff9b::/96 and ::ffff:0:0/96 the compressed run is always before them.
 */
function lowIPv4(address: string): string {
  const groups = new URL(`http://[${address}]/`).hostname.slice(1, -1).split(':');
  const [high, low] = groups.slice(-2).map((group) => Number.parseInt(group === '' ? '0' : group, 16));
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** A URL's host as an IP literal (brackets of IPv6 removed), or undefined for a name. */
export function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? undefined : bare;
}

/**
 * What a project is told when its webhook's destination is refused, at save and in the delivery
 * log: never the address a name resolved to, which would reveal the cluster's internal DNS.
 */
export const DESTINATION_NOT_ALLOWED = 'the destination is not allowed: webhooks reach public addresses only';
