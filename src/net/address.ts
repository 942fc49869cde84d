/**
 * IP addresses as text and as bytes: 16-byte (IPv4-mapped IPv6) addresses to text, dotted quads to bits and bytes,
 * RFC 5952 IPv6 text, and the normalising of address text (IPv4-mapped IPv6 and zone ids). Pure. The byte formatters
 * run once per flow address on the capture hot path: they build text from lookup tables, without intermediate arrays.
 */

/** Decimal text of 0..255, and lowercase hex without and with a leading zero (the formatters below). */
const DEC: readonly string[] = Array.from({ length: 256 }, (_, i) => String(i));
const HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16));
const HEX2: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Word `w` (0..7) of the address at `b[off]` in hex, no leading zeros. */
function hexWord(b: Uint8Array, off: number, w: number): string {
  const hi = b[off + 2 * w] as number;
  const lo = b[off + 2 * w + 1] as number;
  return hi === 0 ? (HEX[lo] as string) : (HEX[hi] as string) + (HEX2[lo] as string);
}

/** Words `from .. to-1` of the address at `b[off]` in hex, joined with ':'. */
function hexWords(b: Uint8Array, off: number, from: number, to: number): string {
  let s = '';
  for (let w = from; w < to; w++) s = w === from ? hexWord(b, off, w) : s + ':' + hexWord(b, off, w);
  return s;
}

/** True when the 16-byte address at `b[off]` is IPv4-mapped (`::ffff:a.b.c.d`: its text is a dotted quad). */
export function isMapped(b: Uint8Array, off: number): boolean {
  return (
    b[off + 10] === 0xff &&
    b[off + 11] === 0xff &&
    ((b[off] as number) |
      (b[off + 1] as number) |
      (b[off + 2] as number) |
      (b[off + 3] as number) |
      (b[off + 4] as number) |
      (b[off + 5] as number) |
      (b[off + 6] as number) |
      (b[off + 7] as number) |
      (b[off + 8] as number) |
      (b[off + 9] as number)) ===
      0
  );
}

/**
 * RFC 5952 text of the 16 bytes at `b[off]` read as IPv6, whatever they hold (an IPv4-mapped address gives
 * `::ffff:a0b:c0d`): lowercase hex, the longest run of two or more zero words as '::', the first one on ties.
 */
function formatIpv6Bytes(b: Uint8Array, off: number): string {
  let bestStart = -1;
  let bestLen = 1; // runs of one zero word stay '0'
  let runStart = -1;
  for (let w = 0; w <= 8; w++) {
    if (w < 8 && b[off + 2 * w] === 0 && b[off + 2 * w + 1] === 0) {
      if (runStart < 0) runStart = w;
    } else if (runStart >= 0) {
      if (w - runStart > bestLen) {
        bestStart = runStart;
        bestLen = w - runStart;
      }
      runStart = -1;
    }
  }
  if (bestStart < 0) return hexWords(b, off, 0, 8);
  return hexWords(b, off, 0, bestStart) + '::' + hexWords(b, off, bestStart + bestLen, 8);
}

/**
 * Formats a 16-byte address: dotted quad for IPv4-mapped addresses, RFC 5952 text otherwise (lowercase hex, the
 * longest run of two or more zero words as '::', the first one on ties).
 */
export function formatAddress(b: Uint8Array, off = 0): string {
  if (isMapped(b, off)) {
    return (
      (DEC[b[off + 12] as number] as string) +
      '.' +
      (DEC[b[off + 13] as number] as string) +
      '.' +
      (DEC[b[off + 14] as number] as string) +
      '.' +
      (DEC[b[off + 15] as number] as string)
    );
  }
  return formatIpv6Bytes(b, off);
}

/**
 * Text of IPv4 addresses by their 32 bits (as an int32, a small integer key), shared by all callers: an address
 * seen again is not formatted again, and every flow with it shares one string (whose hash Map lookups compute
 * once). Cleared when it grows past {@link IPV4_TEXT_MAX}.
 */
const ipv4Text = new Map<number, string>();
const IPV4_TEXT_MAX = 1 << 16;

/**
 * {@link formatAddress}, with the text of IPv4-mapped addresses remembered process-wide (at most 65,536 of them): for
 * callers that format the same hosts over and over (flow batches).
 */
export function addressText(b: Uint8Array, off: number): string {
  if (!isMapped(b, off)) return formatAddress(b, off);
  const key = ((b[off + 12] as number) << 24) | ((b[off + 13] as number) << 16) | ((b[off + 14] as number) << 8) | (b[off + 15] as number);
  let s = ipv4Text.get(key);
  if (s === undefined) {
    s = formatAddress(b, off);
    if (ipv4Text.size >= IPV4_TEXT_MAX) ipv4Text.clear();
    ipv4Text.set(key, s);
  }
  return s;
}

/** Dotted quad of 32 address bits (an unsigned or signed 32-bit integer: only the low 32 bits count). */
export function formatIpv4(bits: number): string {
  return (
    (DEC[bits >>> 24] as string) + '.' + (DEC[(bits >>> 16) & 255] as string) + '.' + (DEC[(bits >>> 8) & 255] as string) + '.' + (DEC[bits & 255] as string)
  );
}

/** Scratch bytes of {@link formatIpv6}. */
const v6Bytes = new Uint8Array(16);

/** RFC 5952 text of a 128-bit address (lowercase, no leading zeros, the longest run (>= 2) of zero groups compressed, first on ties). */
export function formatIpv6(n: bigint): string {
  for (let i = 15; i >= 0; i--) {
    v6Bytes[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return formatIpv6Bytes(v6Bytes, 0);
}

/** The 32 bits of a valid dotted quad (as `isIP` accepts it: four decimal octets, no leading zeros), unsigned. */
export function ipv4Bits(ip: string): number {
  let bits = 0;
  let octet = 0;
  for (let i = 0; i < ip.length; i++) {
    const c = ip.charCodeAt(i);
    if (c === 46) {
      bits = bits * 256 + octet;
      octet = 0;
    } else octet = octet * 10 + (c - 48);
  }
  return bits * 256 + octet;
}

/**
 * The 32 bits (unsigned) of `s` when it is a dotted quad as node:net's `isIPv4` accepts it (four decimal octets
 * 0..255, no leading zeros), else -1. Allocates nothing (`isIPv4` runs a regex exec, whose match array is garbage):
 * for checks that run per flow address.
 */
export function dottedQuadBits(s: string): number {
  const len = s.length;
  if (len < 7 || len > 15) return -1;
  let bits = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || dots === 3) return -1;
      bits = bits * 256 + octet;
      octet = 0;
      digits = 0;
      dots++;
    } else if (c >= 48 && c <= 57) {
      if (digits === 1 && octet === 0) return -1; // a leading zero
      octet = octet * 10 + (c - 48);
      digits++;
      if (octet > 255) return -1;
    } else return -1;
  }
  return dots === 3 && digits > 0 ? bits * 256 + octet : -1;
}

/**
 * Writes a canonical dotted quad (no leading zeros, octets <= 255) as an IPv4-mapped address at `addrs[off]`; leaves
 * the 16 bytes untouched for anything else.
 */
export function writeMappedIpv4(addrs: Uint8Array, off: number, ip: string): void {
  const parts = ip.split('.');
  if (parts.length !== 4) return;
  const bytes = parts.map((p) => (/^(0|[1-9][0-9]{0,2})$/.test(p) ? Number(p) : 256));
  if (bytes.some((b) => b > 255)) return;
  addrs[off + 10] = 0xff;
  addrs[off + 11] = 0xff;
  addrs.set(bytes, off + 12);
}

/** IPv4-mapped IPv6 text (`::ffff:1.2.3.4`, any case) -> the dotted quad; other input unchanged (zone ids included). */
export function unmapIpv4(ip: string): string {
  if (ip.charCodeAt(0) !== 58) return ip; // only text starting with ':' can match
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? (m[1] as string) : ip;
}

const DOTTED = /^[\d.]+$/;

/**
 * Strips an IPv6 zone id and the IPv4-mapped prefix (`::ffff:10.0.0.1` -> `10.0.0.1`) and lowercases the rest: the
 * form in which peer addresses (a socket's `remoteAddress`) are compared. Text that is not an address is returned
 * lowercased, not rejected.
 */
export function normaliseIp(ip: string): string {
  if (DOTTED.test(ip)) return ip; // already a plain IPv4 address (the common case: once per request)
  const zone = ip.indexOf('%');
  return unmapIpv4(zone === -1 ? ip : ip.slice(0, zone)).toLowerCase();
}
