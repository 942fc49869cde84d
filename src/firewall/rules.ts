/**
 * The firewall's pure model: deciding which addresses must never be blocked (loopback, this machine, its gateways and
 * DNS servers, the requesting client, the configured allowlist). Addresses and prefixes are parsed by net/cidr.ts.
 * No I/O here except in the `discover*` helpers at the end, which read the OS and hand the text to pure parsers.
 */
import { readFileSync } from 'node:fs';
import { ConflictError } from '../errors.js';
import { formatIpv6 } from '../net/address.js';
import { overlaps, parseAddress, tryParseAddress, type ParsedAddress } from '../net/cidr.js';
import { machineAddresses } from '../net/classify.js';

/** Why an address is protected; the suffix of the problem code `protected_<reason>`. */
export type ProtectedReason = 'loopback' | 'self' | 'gateway' | 'dns' | 'client' | 'allowlist';

/** Addresses that must never be blocked, gathered from the OS and configuration. */
export interface ProtectedAddresses {
  /** This machine's interface addresses. */
  self: string[];
  /** Next hops of the routing table (default gateways first). */
  gateways: string[];
  /** Name servers from resolv.conf. */
  dns: string[];
  /** Configured allowlist entries (addresses or prefixes). */
  allowlist: string[];
}

const LOOPBACK = [parseAddress('127.0.0.0/8'), parseAddress('::1')];

function parseAll(list: string[]): ParsedAddress[] {
  const out: ParsedAddress[] = [];
  for (const s of list) {
    const p = tryParseAddress(s.replace(/%.*$/, ''));
    if (p) out.push(p);
  }
  return out;
}

/**
 * Decides whether `target` may be blocked. Returns the first reason it is protected (checked in the order loopback,
 * self, gateway, dns, client, allowlist), or null. A prefix is protected when it contains any protected address.
 */
export function protectedReason(target: ParsedAddress, prot: ProtectedAddresses, clientIp?: string | null): ProtectedReason | null {
  const groups: Array<[ProtectedReason, ParsedAddress[]]> = [
    ['loopback', LOOPBACK],
    ['self', parseAll(prot.self)],
    ['gateway', parseAll(prot.gateways)],
    ['dns', parseAll(prot.dns)],
    ['client', clientIp ? parseAll([clientIp]) : []],
    ['allowlist', parseAll(prot.allowlist)],
  ];
  for (const [reason, list] of groups) {
    if (list.some((p) => overlaps(p, target))) return reason;
  }
  return null;
}

const REASON_TEXT: Record<ProtectedReason, string> = {
  loopback: 'it is a loopback address',
  self: "it is one of this machine's own addresses",
  gateway: 'it is a gateway of this machine',
  dns: 'it is a configured DNS server',
  client: 'it is the address of the client that sent this request',
  allowlist: 'it is on the configured allowlist (VIGIL_FIREWALL_ALLOWLIST)',
};

/** Throws a ConflictError (409, code `protected_<reason>`) when `target` is protected. */
export function assertBlockable(target: ParsedAddress, prot: ProtectedAddresses, clientIp?: string | null): void {
  const reason = protectedReason(target, prot, clientIp);
  if (reason) {
    throw new ConflictError(`Refusing to block ${target.key}: ${REASON_TEXT[reason]}.`, `protected_${reason}`, { ip: target.key, protectedReason: reason });
  }
}

// ---- OS discovery: pure parsers plus thin readers ----

/** Next hops from `/proc/net/route` (little-endian hex columns). Default routes come first. */
export function parseProcNetRoute(text: string): string[] {
  const defaults: string[] = [];
  const others: string[] = [];
  for (const line of text.split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 4) continue;
    const [, dest, gw] = cols;
    if (!/^[0-9A-Fa-f]{8}$/.test(gw) || /^0+$/.test(gw)) continue;
    const n = parseInt(gw, 16);
    const ip = [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff].join('.');
    (dest === '00000000' ? defaults : others).push(ip);
  }
  return [...new Set([...defaults, ...others])];
}

/** Next hops from `/proc/net/ipv6_route` (32 hex digits per address, network order). */
export function parseProcNetIpv6Route(text: string): string[] {
  const out = new Set<string>();
  for (const line of text.split('\n')) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 10) continue;
    const nextHop = cols[4];
    if (!/^[0-9a-fA-F]{32}$/.test(nextHop) || /^0+$/.test(nextHop)) continue;
    out.add(formatIpv6(BigInt(`0x${nextHop}`)));
  }
  return [...out];
}

/** `nameserver` entries from resolv.conf text (zone ids stripped). */
export function parseResolvConf(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*nameserver\s+(\S+)/.exec(line);
    if (m) out.push(m[1].replace(/%.*$/, ''));
  }
  return out;
}

function readOr(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/**
 * Reads the protected addresses of this machine now: interface addresses (os.networkInterfaces), gateways
 * (/proc/net/route, /proc/net/ipv6_route) and DNS servers (/etc/resolv.conf), plus `allowlist`. Missing files
 * (non-Linux) simply contribute nothing.
 */
export function discoverProtectedAddresses(
  allowlist: readonly string[],
  files = { route: '/proc/net/route', route6: '/proc/net/ipv6_route', resolv: '/etc/resolv.conf' },
): ProtectedAddresses {
  return {
    self: machineAddresses(),
    gateways: [...parseProcNetRoute(readOr(files.route)), ...parseProcNetIpv6Route(readOr(files.route6))],
    dns: parseResolvConf(readOr(files.resolv)),
    allowlist: [...allowlist],
  };
}

/** A source of protected addresses; called on every block so DHCP and interface changes are seen. */
export type ProtectedAddressProvider = () => ProtectedAddresses;

/** The default provider: {@link discoverProtectedAddresses} cached for `ttlMs` (reading /proc is cheap, but auto-block can be bursty). */
export function cachedProtectedAddresses(allowlist: readonly string[], ttlMs = 5000, now: () => number = Date.now): ProtectedAddressProvider {
  let cached: ProtectedAddresses | undefined;
  let at = 0;
  return () => {
    const t = now();
    if (!cached || t - at >= ttlMs) {
      cached = discoverProtectedAddresses(allowlist);
      at = t;
    }
    return cached;
  };
}
