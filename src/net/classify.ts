/**
 * What kind of address a text is: loopback, private, global (routable, so it may have a location), a possible threat
 * (a host, not the unspecified address), or local to this machine. Each answer takes address text as peers,
 * flows and users give it; none of them throws.
 */
import { BlockList, isIP } from 'node:net';
import os from 'node:os';
import { dottedQuadBits, ipv4Bits, normaliseIp, unmapIpv4 } from './address.js';

/** True for 127.0.0.0/8 and ::1 (after {@link normaliseIp}). */
export function isLoopback(ip: string): boolean {
  const n = normaliseIp(ip);
  return n === '::1' || (n.startsWith('127.') && isIP(n) === 4);
}

/**
 * RFC 1918, link-local, loopback, CGNAT (v4); ULA, link-local, loopback (v6), after {@link normaliseIp}: the
 * "inside" side of the inbound/outbound split.
 */
export function isPrivate(ip: string): boolean {
  // The live statistics ask twice per flow: a plain dotted quad (normalised already) is read without allocating.
  const quad = dottedQuadBits(ip);
  if (quad >= 0) return isPrivateV4(quad);
  const n = normaliseIp(ip);
  const family = isIP(n);
  if (family === 4) return isPrivateV4(ipv4Bits(n));
  if (family === 6) return n === '::1' || /^f[cd]/.test(n) || /^fe[89ab]/.test(n);
  return false;
}

/** RFC 1918, loopback, link-local or CGNAT, by the address's 32 bits. */
function isPrivateV4(bits: number): boolean {
  const a = Math.floor(bits / 0x1000000);
  const b = Math.floor(bits / 0x10000) % 256;
  return (
    a === 10 || a === 127 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127)
  );
}

/** This machine's interface addresses, as os.networkInterfaces() gives them (IPv6 link-local ones may carry no zone). */
export function machineAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((a): a is os.NetworkInterfaceInfo => a !== undefined)
    .map((a) => a.address);
}

/** A host is local when it is one of this machine's addresses (`extra`) or {@link isPrivate}. */
export function localAddressClassifier(extra: readonly string[] = machineAddresses()): (ip: string) => boolean {
  const own = new Set(extra.map(normaliseIp));
  return (ip) => own.has(normaliseIp(ip)) || isPrivate(ip);
}

/** Non-global IPv4 networks (prefix, length). */
const NON_GLOBAL_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
/** All non-global networks (IPv6 addresses are checked here; IPv4 ones by {@link isGlobalIpv4}, which agrees). */
const NON_GLOBAL = new BlockList();
for (const [net, prefix] of NON_GLOBAL_V4) NON_GLOBAL.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['100::', 64],
] as const)
  NON_GLOBAL.addSubnet(net, prefix, 'ipv6');

/** {@link NON_GLOBAL_V4} as (network bits, mask) pairs, for an integer check instead of a BlockList's SocketAddress. */
const NON_GLOBAL_V4_BITS: ReadonlyArray<readonly [number, number]> = NON_GLOBAL_V4.map(([net, prefix]) => {
  const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
  return [(ipv4Bits(net) & mask) >>> 0, mask] as const;
});

/** True when a valid dotted quad lies in none of the {@link NON_GLOBAL_V4} networks. */
function isGlobalIpv4(ip: string): boolean {
  const bits = ipv4Bits(ip);
  for (const [net, mask] of NON_GLOBAL_V4_BITS) if ((bits & mask) >>> 0 === net) return false;
  return true;
}

/**
 * True for a globally routable unicast address (the only kind with a location): not private, loopback, link-local,
 * multicast, documentation, benchmarking, reserved or unspecified. Surrounding whitespace and the IPv4-mapped prefix
 * are ignored; text that is not an address is not global.
 */
export function isGlobalAddress(ip: string): boolean {
  const addr = unmapIpv4(ip.trim());
  const family = isIP(addr);
  if (family === 0) return false;
  return family === 4 ? isGlobalIpv4(addr) : !NON_GLOBAL.check(addr, 'ipv6');
}

const UNSPECIFIED = new BlockList();
UNSPECIFIED.addAddress('0.0.0.0', 'ipv4'); // for ::ffff:0.0.0.0
UNSPECIFIED.addAddress('::', 'ipv6');

/**
 * True when alerts about `ip` can make it a threat: a valid address, not the unspecified 0.0.0.0 or ::, which name no
 * host (a DHCP client asking for an address sends from 0.0.0.0). A valid IPv4 text has no leading zeros, so 0.0.0.0
 * has one spelling and needs no BlockList (whose check builds a SocketAddress).
 */
export function isThreatAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return ip !== '0.0.0.0';
  return family === 6 && !UNSPECIFIED.check(ip, 'ipv6');
}
