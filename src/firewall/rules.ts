/**
 * The firewall's pure model: parsing and normalising addresses (IPv4, IPv6, IPv4-mapped IPv6 reduced to IPv4, CIDR
 * prefixes), and deciding which addresses must never be blocked (loopback, this machine, its gateways and DNS
 * servers, the requesting client, the configured allowlist). No I/O here except in the `discover*` helpers at the end,
 * which read the OS and hand the text to pure parsers.
 */
import { readFileSync } from 'node:fs';
import { isIPv4, isIPv6 } from 'node:net';
import { networkInterfaces } from 'node:os';
import { ConflictError, ValidationError } from '../errors.js';

/** A validated, normalised address or prefix. */
export interface ParsedAddress {
  /** 4 or 6 (IPv4-mapped IPv6 input yields 4). */
  family: 4 | 6;
  /** Canonical address text: dotted quad, or RFC 5952 IPv6 (lowercase, longest zero run compressed). */
  address: string;
  /** Prefix length; 32/128 for a single address. */
  prefix: number;
  /** The key used everywhere (store, OS sets): `address` for single addresses, `address/prefix` for networks. */
  key: string;
  /** Numeric first address of the range (the network address). */
  first: bigint;
  /** Numeric last address of the range. */
  last: bigint;
}

/** Longest accepted input; anything longer is rejected before parsing. */
const MAX_INPUT_LENGTH = 64;
/** Broadest prefixes accepted, so a typo cannot black-hole a continent. */
export const MIN_PREFIX = { 4: 8, 6: 16 } as const;

function invalid(input: string, why: string): ValidationError {
  const shown = JSON.stringify(input.length > MAX_INPUT_LENGTH ? `${input.slice(0, MAX_INPUT_LENGTH)}…` : input);
  return new ValidationError(`Invalid IP address ${shown}: ${why}`, [{ path: 'ip', message: why }], 'invalid_ip');
}

function ipv4ToBigInt(text: string): bigint {
  let n = 0n;
  for (const part of text.split('.')) n = (n << 8n) | BigInt(Number(part));
  return n;
}

function bigIntToIpv4(n: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String(Number((n >> s) & 0xffn))).join('.');
}

/** Expands a valid IPv6 text (node:net accepted it; no zone) into eight 16-bit groups. */
function ipv6Groups(text: string): number[] {
  let s = text;
  const lastColon = s.lastIndexOf(':');
  const tailText = s.slice(lastColon + 1);
  if (tailText.includes('.')) {
    // Embedded dotted quad (`::ffff:1.2.3.4`): rewrite it as two hex groups.
    const v4 = ipv4ToBigInt(tailText);
    s = `${s.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const parse = (p: string | undefined): number[] => (p ? p.split(':').map((g) => parseInt(g, 16)) : []);
  const double = s.indexOf('::');
  const left = parse(double === -1 ? s : s.slice(0, double));
  const right = double === -1 ? [] : parse(s.slice(double + 2));
  const zeros = double === -1 ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  const groups = [...left, ...zeros, ...right];
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) {
    throw new RangeError(`internal: cannot expand IPv6 ${text}`);
  }
  return groups;
}

function groupsToBigInt(groups: number[]): bigint {
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

function bigIntToGroups(n: bigint): number[] {
  const out: number[] = [];
  for (let i = 7; i >= 0; i--) out.push(Number((n >> BigInt(i * 16)) & 0xffffn));
  return out;
}

/** RFC 5952 text: lowercase, no leading zeros, the longest run (>= 2) of zero groups compressed (first on ties). */
export function formatIpv6(n: bigint): string {
  const g = bigIntToGroups(n);
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = g.map((x) => x.toString(16));
  if (bestLen < 2) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

/** The upper 96 bits of an IPv4-mapped IPv6 address (::ffff:0:0/96). */
const MAPPED_PREFIX = 0xffffn;
const V4_MASK = (1n << 32n) - 1n;

/**
 * Parses and normalises user input into an address or prefix. Accepts IPv4, IPv6 (any valid spelling),
 * IPv4-mapped IPv6 (`::ffff:1.2.3.4` → `1.2.3.4`) and CIDR (`10.0.0.0/8`; host bits are cleared). Rejects zone
 * ids, whitespace, anything that is not an address, the unspecified address, and prefixes broader than
 * {@link MIN_PREFIX}. Throws a ValidationError (400, code `invalid_ip`, field `ip`).
 *
 * The character check runs first, so shell metacharacters, newlines and `$(...)` never reach the OS layer (which
 * uses argument lists anyway).
 */
export function parseAddress(input: unknown): ParsedAddress {
  if (typeof input !== 'string') throw invalid(String(input), 'expected a string');
  if (input.length === 0) throw invalid(input, 'empty');
  if (input.length > MAX_INPUT_LENGTH) throw invalid(input, `longer than ${MAX_INPUT_LENGTH} characters`);
  if (!/^[0-9A-Fa-f:./]+$/.test(input)) throw invalid(input, 'only hex digits, ".", ":" and one "/prefix" are allowed');
  const slash = input.indexOf('/');
  const addrText = slash === -1 ? input : input.slice(0, slash);
  const prefixText = slash === -1 ? undefined : input.slice(slash + 1);
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) throw invalid(input, 'the prefix length must be a number');

  let family: 4 | 6;
  let value: bigint;
  let prefix: number;
  if (isIPv4(addrText)) {
    family = 4;
    value = ipv4ToBigInt(addrText);
    prefix = prefixText === undefined ? 32 : Number(prefixText);
    if (prefix > 32) throw invalid(input, 'IPv4 prefix length must be at most 32');
  } else if (isIPv6(addrText)) {
    value = groupsToBigInt(ipv6Groups(addrText));
    prefix = prefixText === undefined ? 128 : Number(prefixText);
    if (prefix > 128) throw invalid(input, 'IPv6 prefix length must be at most 128');
    if (value >> 32n === MAPPED_PREFIX && prefix >= 96) {
      family = 4;
      value &= V4_MASK;
      prefix -= 96;
    } else {
      family = 6;
    }
  } else {
    throw invalid(input, 'not an IPv4 or IPv6 address');
  }

  const bits = family === 4 ? 32 : 128;
  if (prefix < MIN_PREFIX[family]) throw invalid(input, `prefix /${prefix} is broader than /${MIN_PREFIX[family]}`);
  const hostBits = BigInt(bits - prefix);
  const first = (value >> hostBits) << hostBits;
  const last = first | ((1n << hostBits) - 1n);
  if (prefix === bits && first === 0n) throw invalid(input, 'the unspecified address cannot be blocked');
  const address = family === 4 ? bigIntToIpv4(first) : formatIpv6(first);
  const key = prefix === bits ? address : `${address}/${prefix}`;
  return { family, address, prefix, key, first, last };
}

/** Returns the normalised key, or null when `input` is not a valid address (no exception). */
export function tryParseAddress(input: unknown): ParsedAddress | null {
  try {
    return parseAddress(input);
  } catch {
    return null;
  }
}

/** True when the two ranges (same family) share at least one address. */
export function overlaps(a: ParsedAddress, b: ParsedAddress): boolean {
  return a.family === b.family && a.first <= b.last && b.first <= a.last;
}

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
export function discoverProtectedAddresses(allowlist: readonly string[], files = { route: '/proc/net/route', route6: '/proc/net/ipv6_route', resolv: '/etc/resolv.conf' }): ProtectedAddresses {
  const self: string[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const info of list ?? []) self.push(info.address);
  }
  return {
    self,
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
