/** Shared address tests and keys for the detectors (they run once per flow: no allocation for IPv4 addresses). */
import type { FlowColumns } from '../../native/flow-batch.js';
import { formatIpv4, ipv4Bits, isMapped } from '../../net/address.js';
import { isPrivate } from '../../net/classify.js';
import { HASH_SEED, reusableKey, type TableKey } from '../lru-map.js';

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
  return v < 0 ? ipAt(c, k) : v | 0;
}

/**
 * Texts of IPv6 addresses and the text keys built from them, remembered by the addresses' bytes: a flow's address
 * text is made per flow (flow-batch.ts `BatchView.ip`), and a key text per lookup, while the same few hosts come back
 * flow after flow (the bench input: 5,868 IPv6 flows, 1,044 sources, 2,700 (pair, port, protocol) keys). A hit gives
 * the string made before: no formatting, no concatenation, and a string whose hash the Maps it is looked up in have
 * computed already. Each memo is direct-mapped (a slot per seeded hash of the bytes and numbers, a new entry replaces
 * the slot's old one), so it stays bounded and a lookup is one slot's compare.
 *
 * Only addresses whose 16 bytes are not all zero are remembered: those bytes are the text's (`ip(k)` is
 * net/address.ts `formatAddress` of them) in both kinds of batch; a batch of plain records carries zeros for every
 * address that is not a dotted quad (flow-batch.ts `FlowColumns.addrs`), and those are taken from `ip(k)` each time.
 */
/** Entries per memo (a power of two). */
const MEMO_SIZE = 4096;

function mix(h: number, w: number): number {
  const x = Math.imul(h ^ w, 0x9e3779b1);
  return x ^ (x >>> 15);
}

/** A direct-mapped memo of strings keyed by `stride` 32-bit words. */
class TextMemo {
  readonly words: Uint32Array;
  readonly texts: Array<string | null> = new Array<string | null>(MEMO_SIZE).fill(null);
  /** The slot of the words {@link lookup} was last asked for. */
  at = 0;
  constructor(readonly stride: number) {
    this.words = new Uint32Array(MEMO_SIZE * stride);
  }
}

const textMemo = new TextMemo(4);
const singleMemo = new TextMemo(5);
const pairMemo = new TextMemo(9);

/** True when address `k`'s bytes are its text's (not all zero: see the memo comment above). */
function bytesKnown(w: Uint32Array, k: number): boolean {
  const o = 4 * k;
  return ((w[o] as number) | (w[o + 1] as number) | (w[o + 2] as number) | (w[o + 3] as number)) !== 0;
}

/**
 * The remembered text of address `k1` (with address `k2` when `k2` >= 0) and `extra`, or null (the slot is then
 * `memo.at`, for {@link remember}).
 */
function lookup(memo: TextMemo, w: Uint32Array, k1: number, k2: number, extra: number): string | null {
  const o1 = 4 * k1;
  const o2 = 4 * k2;
  let h = mix(mix(mix(mix(HASH_SEED, w[o1] as number), w[o1 + 1] as number), w[o1 + 2] as number), w[o1 + 3] as number);
  if (k2 >= 0) h = mix(mix(mix(mix(h, w[o2] as number), w[o2 + 1] as number), w[o2 + 2] as number), w[o2 + 3] as number);
  if (memo.stride !== 4) h = mix(h, extra);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  const at = (h ^ (h >>> 13)) & (MEMO_SIZE - 1);
  memo.at = at;
  const text = memo.texts[at] as string | null;
  if (text === null) return null;
  const m = memo.words;
  const s = at * memo.stride;
  if (m[s] !== w[o1] || m[s + 1] !== w[o1 + 1] || m[s + 2] !== w[o1 + 2] || m[s + 3] !== w[o1 + 3]) return null;
  if (k2 >= 0 && (m[s + 4] !== w[o2] || m[s + 5] !== w[o2 + 1] || m[s + 6] !== w[o2 + 2] || m[s + 7] !== w[o2 + 3])) return null;
  if (memo.stride !== 4 && m[s + memo.stride - 1] !== extra) return null;
  return text;
}

/** Stores `text` for the words {@link lookup} was last asked for (and did not find). */
function remember(memo: TextMemo, w: Uint32Array, k1: number, k2: number, extra: number, text: string): string {
  const m = memo.words;
  const s = memo.at * memo.stride;
  for (let j = 0; j < 4; j++) m[s + j] = w[4 * k1 + j] as number;
  if (k2 >= 0) for (let j = 0; j < 4; j++) m[s + 4 + j] = w[4 * k2 + j] as number;
  if (memo.stride !== 4) m[s + memo.stride - 1] = extra;
  memo.texts[memo.at] = text;
  return text;
}

/** `c.ip(k)` (the same text), remembered by the address's bytes when they are its text's (IPv6 addresses). */
function ipAt(c: FlowColumns, k: number): string {
  const w = c.addrWords;
  if (!bytesKnown(w, k)) return c.ip(k);
  return lookup(textMemo, w, k, -1, 0) ?? remember(textMemo, w, k, -1, 0, c.ip(k));
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
  scratch.text = v < 0 ? singleText(c, k, a & 0xffff) : null;
  return scratch;
}

/** The text of {@link addressKey} (address `k`, `a`) for an address that is not IPv4, remembered by its bytes. */
function singleText(c: FlowColumns, k: number, a: number): string {
  const w = c.addrWords;
  if (!bytesKnown(w, k)) return singleKeyText(c.ip(k), a);
  return lookup(singleMemo, w, k, -1, a) ?? remember(singleMemo, w, k, -1, a, singleKeyText(ipAt(c, k), a));
}

/** The text of a key of one address that is not IPv4 (see {@link addressKey}). */
const singleKeyText = (ip: string, a: number): string => `\u0002${ip}\u0000${String.fromCharCode(a)}`;

/** Key of (address `k1`, address `k2`, `a`, `b`). */
export function addressPairKey(c: FlowColumns, k1: number, k2: number, a = 0, b = 0): Readonly<TableKey> {
  const v1 = ipv4At(c, k1);
  const v2 = v1 < 0 ? -1 : ipv4At(c, k2);
  scratch.a = v1 * 65536 + (a & 0xffff);
  scratch.b = v2 * 65536 + (b & 0xffff);
  scratch.text = v2 < 0 ? pairText(c, k1, k2, a & 0xffff, b & 0xffff) : null;
  return scratch;
}

/** The text of {@link addressPairKey} for addresses not both IPv4, remembered by their bytes. */
function pairText(c: FlowColumns, k1: number, k2: number, a: number, b: number): string {
  const w = c.addrWords;
  if (!bytesKnown(w, k1) || !bytesKnown(w, k2)) return pairKeyText(c.ip(k1), c.ip(k2), a, b);
  const extra = a * 65536 + b;
  return lookup(pairMemo, w, k1, k2, extra) ?? remember(pairMemo, w, k1, k2, extra, pairKeyText(ipAt(c, k1), ipAt(c, k2), a, b));
}

/** The text of a key of two addresses, not both IPv4 (see {@link addressPairKey}). */
const pairKeyText = (ip1: string, ip2: string, a: number, b: number): string => `\u0002${ip1}\u0000${ip2}\u0000${String.fromCharCode(a, b)}`;

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
