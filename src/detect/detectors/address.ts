/** Shared address tests and keys for the detectors (they run once per flow: no allocation for IPv4 addresses). */
import type { FlowColumns } from '../../native/flow-batch.js';
import { formatIpv4, ipv4Bits, isMapped } from '../../net/address.js';
import { isPrivate } from '../../net/classify.js';
import { reusableKey, type TableKey } from '../lru-map.js';

/**
 * True for multicast and broadcast destinations: IPv6 ff00::/8; IPv4 first octet >= 224 or a `.255` address.
 * Same answer as `Number(ip.split('.')[0]) >= 224 || ip.endsWith('.255')`, without allocating for dotted quads.
 */
export function isGroupAddress(ip: string): boolean {
  if (ip.includes(':')) return ip.toLowerCase().startsWith('ff');
  let first = 0;
  let i = 0;
  for (; i < ip.length; i++) {
    const c = ip.charCodeAt(i);
    if (c === 46) break; // '.'
    if (c < 48 || c > 57 || i >= 6) {
      first = Number(ip.split('.')[0]); // not a plain dotted quad: the general rule
      i = -1;
      break;
    }
    first = first * 10 + (c - 48);
  }
  if (i === 0) first = 0; // Number('') === 0
  return first >= 224 || ip.endsWith('.255');
}

/**
 * True where 32-bit words hold their bytes lowest first (x86, ARM): then the batch's address words (flow-batch.ts
 * `FlowColumns.addrWords`) are read, four loads where the bytes take sixteen; elsewhere the bytes.
 */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
/** Bytes 8..11 of an IPv4-mapped address (00 00 ff ff) as a little-endian word. */
const MAPPED_WORD = 0xffff0000;

/** True when address `k` of the batch is IPv4-mapped (its text is a dotted quad). */
function mappedAt(c: FlowColumns, k: number): boolean {
  if (!LITTLE_ENDIAN) return isMapped(c.addrs, k * 16);
  const w = c.addrWords;
  const o = 4 * k;
  return w[o + 2] === MAPPED_WORD && ((w[o] as number) | (w[o + 1] as number)) === 0;
}

/** {@link isGroupAddress} of address `k` of a batch (`c.ip(k)`), read from its bytes when it is IPv4. */
export function isGroupAddressAt(c: FlowColumns, k: number): boolean {
  if (!mappedAt(c, k)) return isGroupAddress(c.ip(k));
  const o = k * 16;
  return (c.addrs[o + 12] as number) >= 224 || c.addrs[o + 15] === 255;
}

/** {@link isPrivate}'s answers for the texts of addresses a batch does not carry as bytes (plain records). */
const privateText = new Map<string, boolean>();
/** Texts {@link privateText} holds before it starts over. */
const PRIVATE_TEXT_MAX = 4096;

/**
 * {@link isPrivate} (net/classify.ts: RFC 1918, CGNAT, link-local, loopback, ULA) of address `k` of a batch. IPv6
 * addresses are judged from their bytes, as the rule judges their text (net/address.ts `formatAddress`: lowercase hex,
 * no leading zeros): `::1`, or a first word whose hex starts with `fc`, `fd` or `fe8`..`feb` (a text that starts with
 * `::` or `0` never does). All-zero bytes are also what a batch of plain records carries for any address that is not
 * a dotted quad (flow-batch.ts `FlowColumns.addrs`): those are judged on their text.
 */
export function isPrivateAt(c: FlowColumns, k: number): boolean {
  const x = c.addrs;
  const o = k * 16;
  if (!mappedAt(c, k)) {
    let zero = true;
    for (let j = 0; j < 15 && zero; j++) zero = x[o + j] === 0;
    if (zero && x[o + 15] === 1) return true; // ::1
    if (zero) return privateOfText(c.ip(k));
    const w = ((x[o] as number) << 8) | (x[o + 1] as number);
    // The first hex digits of w: 0xfc, 0xfd as two digits; 0xfc0..0xfdf, 0xfe8..0xfeb as three; 0xfc00..0xfdff,
    // 0xfe80..0xfebf as four.
    return (w >= 0xfc && w <= 0xfd) || (w >= 0xfc0 && w <= 0xfdf) || (w >= 0xfe8 && w <= 0xfeb) || (w >= 0xfc00 && w <= 0xfdff) || (w >= 0xfe80 && w <= 0xfebf);
  }
  const a = x[o + 12] as number;
  const b = x[o + 13] as number;
  return (
    a === 10 || a === 127 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127)
  );
}

/** {@link isPrivate} of `ip`, remembered (a few thousand texts, then forgotten). */
function privateOfText(ip: string): boolean {
  let answer = privateText.get(ip);
  if (answer === undefined) {
    if (privateText.size >= PRIVATE_TEXT_MAX) privateText.clear();
    answer = isPrivate(ip);
    privateText.set(ip, answer);
  }
  return answer;
}

/** True when address `k` of a batch is 0.0.0.0. */
export function isUnspecifiedIpv4At(c: FlowColumns, k: number): boolean {
  if (!mappedAt(c, k)) return false;
  if (LITTLE_ENDIAN) return c.addrWords[4 * k + 3] === 0;
  const a = c.addrs;
  const o = k * 16;
  return (a[o + 12] | a[o + 13] | a[o + 14] | a[o + 15]) === 0;
}

/** The 32-bit value of address `k` of a batch when it is IPv4 (a dotted quad), else -1. */
export function ipv4At(c: FlowColumns, k: number): number {
  if (!mappedAt(c, k)) return -1;
  if (LITTLE_ENDIAN) {
    const w = c.addrWords[4 * k + 3] as number; // bytes 12..15, the first lowest
    return (w & 0xff) * 0x1000000 + (((w >>> 8) & 0xff) << 16) + (((w >>> 16) & 0xff) << 8) + (w >>> 24);
  }
  const x = c.addrs;
  const o = k * 16 + 12;
  return (x[o] as number) * 0x1000000 + (((x[o + 1] as number) << 16) | ((x[o + 2] as number) << 8) | (x[o + 3] as number));
}

/**
 * The 32-bit value of `ip` when it is a dotted quad as a batch's `ip()` writes one (canonical: no leading zeros),
 * else -1: {@link ipv4At} for an address known only by its text (`ip` and a batch address with the value are the
 * same text).
 */
export function ipv4OfText(ip: string): number {
  const c = ip.charCodeAt(0);
  if (!(c >= 48 && c <= 57) || ip.length > 15) return -1; // cheap rejection of IPv6 and other text
  const v = ipv4Bits(ip);
  return v >= 0 && v <= 0xffffffff && formatIpv4(v) === ip ? v : -1;
}

/**
 * An address to keep per event (a probe's destination, a packet's sender), equal exactly when the texts are: IPv4 as
 * its 32-bit value in a signed 32-bit integer (no allocation), any other address as its text.
 */
export type AddressRef = number | string;

/** {@link AddressRef} of address `k` of a batch. */
export function addressRef(c: FlowColumns, k: number): AddressRef {
  const v = ipv4At(c, k);
  return v < 0 ? c.ip(k) : v | 0;
}

/** The address text of an {@link AddressRef}. */
export function addressOfRef(r: AddressRef): string {
  return typeof r === 'number' ? formatIpv4(r >>> 0) : r;
}

/**
 * Detector table keys (lru-map.ts `TableKey`), equal exactly when the addresses' texts and the numbers are equal: IPv4
 * addresses as numbers (an address times 65536 plus a number, per address), anything else as a string (the texts
 * between separators). `a`, `b` are integers 0..65535 (ports, protocol numbers), taken modulo 65536. The functions
 * return one object they reuse: read it before the next call.
 */
const scratch: TableKey = reusableKey();

/** Key of (address `k`, `a`). */
export function addressKey(c: FlowColumns, k: number, a = 0): Readonly<TableKey> {
  const v = ipv4At(c, k);
  scratch.a = v * 65536 + (a & 0xffff);
  scratch.b = 0;
  scratch.text = v < 0 ? `\u0002${c.ip(k)}\u0000${String.fromCharCode(a)}` : null;
  return scratch;
}

/** Key of (address `k1`, address `k2`, `a`, `b`). */
export function addressPairKey(c: FlowColumns, k1: number, k2: number, a = 0, b = 0): Readonly<TableKey> {
  const v1 = ipv4At(c, k1);
  const v2 = v1 < 0 ? -1 : ipv4At(c, k2);
  scratch.a = v1 * 65536 + (a & 0xffff);
  scratch.b = v2 * 65536 + (b & 0xffff);
  scratch.text = v2 < 0 ? `\u0002${c.ip(k1)}\u0000${c.ip(k2)}\u0000${String.fromCharCode(a, b)}` : null;
  return scratch;
}

/** The address text of an {@link addressKey}. */
export function addressOfKey(key: Readonly<TableKey>): string {
  return key.text === null ? formatIpv4(Math.floor(key.a / 65536)) : key.text.slice(1, key.text.indexOf('\u0000'));
}

/** The two address texts of an {@link addressPairKey}. */
export function addressesOfPairKey(key: Readonly<TableKey>): [string, string] {
  if (key.text === null) return [formatIpv4(Math.floor(key.a / 65536)), formatIpv4(Math.floor(key.b / 65536))];
  const t = key.text;
  const i = t.indexOf('\u0000');
  return [t.slice(1, i), t.slice(i + 1, t.indexOf('\u0000', i + 1))];
}
