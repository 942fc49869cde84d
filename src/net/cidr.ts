/**
 * Addresses and prefixes as the firewall and the configuration take them from people: parsing and normalising IPv4,
 * IPv6, IPv4-mapped IPv6 (reduced to IPv4) and CIDR prefixes into one canonical key and a numeric range, and
 * comparing ranges.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { ValidationError } from '../errors.js';
import { formatIpv4, formatIpv6, ipv4Bits } from './address.js';
import { boundedMemo } from './memo.js';

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

/** Expands a valid IPv6 text (node:net accepted it; no zone) into eight 16-bit groups. */
function ipv6Groups(text: string): number[] {
  let s = text;
  const lastColon = s.lastIndexOf(':');
  const tailText = s.slice(lastColon + 1);
  if (tailText.includes('.')) {
    // Embedded dotted quad (`::ffff:1.2.3.4`): rewrite it as two hex groups.
    const v4 = ipv4Bits(tailText);
    s = `${s.slice(0, lastColon + 1)}${Math.floor(v4 / 0x10000).toString(16)}:${(v4 & 0xffff).toString(16)}`;
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

/** The upper 96 bits of an IPv4-mapped IPv6 address (::ffff:0:0/96). */
const MAPPED_PREFIX = 0xffffn;
const V4_MASK = (1n << 32n) - 1n;

/**
 * Parses and normalises user input into an address or prefix. Accepts IPv4, IPv6 (any valid spelling),
 * IPv4-mapped IPv6 (`::ffff:1.2.3.4` → `1.2.3.4`) and CIDR (`10.0.0.0/8`; host bits are cleared). Rejects zone
 * ids, whitespace, anything that is not an address, the unspecified address, and prefixes broader than
 * `options.minPrefix` (default {@link MIN_PREFIX}: what a person may block; threat lists take broader ones). Throws a ValidationError (400, code `invalid_ip`, field `ip`).
 *
 * The character check runs first, so shell metacharacters, newlines and `$(...)` never reach the OS layer (which
 * uses argument lists anyway).
 */
export function parseAddress(input: unknown, options: { minPrefix?: { 4: number; 6: number } } = {}): ParsedAddress {
  const minPrefix = options.minPrefix ?? MIN_PREFIX;
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
    value = BigInt(ipv4Bits(addrText));
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
  if (prefix < minPrefix[family]) throw invalid(input, `prefix /${prefix} is broader than /${minPrefix[family]}`);
  const hostBits = BigInt(bits - prefix);
  const first = (value >> hostBits) << hostBits;
  const last = first | ((1n << hostBits) - 1n);
  if (prefix === bits && first === 0n) throw invalid(input, 'the unspecified address cannot be blocked');
  const address = family === 4 ? formatIpv4(Number(first)) : formatIpv6(first);
  const key = prefix === bits ? address : `${address}/${prefix}`;
  return { family, address, prefix, key, first, last };
}

/** Returns the normalised key, or null when `input` is not a valid address (no exception). */
export function tryParseAddress(input: unknown, options: { minPrefix?: { 4: number; 6: number } } = {}): ParsedAddress | null {
  try {
    return parseAddress(input, options);
  } catch {
    return null;
  }
}

/**
 * Inputs already parsed by {@link lookupAddress}: the result, or null for invalid input. Cleared when it grows past
 * {@link LOOKUP_MAX} entries.
 */

/**
 * {@link tryParseAddress} with the default options, remembering the answer for the last few thousand distinct inputs:
 * for callers that ask about the same flow addresses over and over (the firewall's `isBlocked`, twice per flow), so a
 * repeated address costs one Map lookup instead of a regex test, BigInt arithmetic, formatting and (for invalid input
 * or the unspecified address) a thrown ValidationError. The result is shared: callers must not change it.
 */
export const lookupAddress: (input: string) => Readonly<ParsedAddress> | null = boundedMemo((input: string) => tryParseAddress(input), 4096);

/** True when the two ranges (same family) share at least one address. */
export function overlaps(a: ParsedAddress, b: ParsedAddress): boolean {
  return a.family === b.family && a.first <= b.last && b.first <= a.last;
}
