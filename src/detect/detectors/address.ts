/** Shared address tests and keys for the detectors (they run once per flow: no allocation beyond a key). */
import type { FlowColumns } from '../../native/flow-batch.js';

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

/** True when address `k` of the batch is IPv4-mapped (its text is a dotted quad). */
function mappedAt(c: FlowColumns, k: number): boolean {
  const a = c.addrs;
  const o = k * 16;
  return a[o + 10] === 0xff && a[o + 11] === 0xff && (a[o] | a[o + 1] | a[o + 2] | a[o + 3] | a[o + 4] | a[o + 5] | a[o + 6] | a[o + 7] | a[o + 8] | a[o + 9]) === 0;
}

/** {@link isGroupAddress} of address `k` of a batch (`c.ip(k)`), read from its bytes when it is IPv4. */
export function isGroupAddressAt(c: FlowColumns, k: number): boolean {
  if (!mappedAt(c, k)) return isGroupAddress(c.ip(k));
  const o = k * 16;
  return (c.addrs[o + 12] as number) >= 224 || c.addrs[o + 15] === 255;
}

/** True when address `k` of a batch is 0.0.0.0. */
export function isUnspecifiedIpv4At(c: FlowColumns, k: number): boolean {
  if (!mappedAt(c, k)) return false;
  const a = c.addrs;
  const o = k * 16;
  return (a[o + 12] | a[o + 13] | a[o + 14] | a[o + 15]) === 0;
}

/**
 * Detector keys: short strings equal exactly when the addresses' texts and the numbers are equal (one allocation, no
 * address formatting for IPv4). IPv4 addresses become two UTF-16 units after a tag unit; other addresses their text
 * between separators. `a`..`c` are integers 0..65535 (ports, protocol numbers).
 */
export function addressKey(c: FlowColumns, k: number, a = 0): string {
  if (!mappedAt(c, k)) return `\u0002${c.ip(k)}\u0000${String.fromCharCode(a)}`;
  const x = c.addrs;
  const o = k * 16 + 12;
  return String.fromCharCode(1, ((x[o] as number) << 8) | (x[o + 1] as number), ((x[o + 2] as number) << 8) | (x[o + 3] as number), a);
}

/** Key of (address `k1`, address `k2`, `a`, `b`); see {@link addressKey}. */
export function addressPairKey(c: FlowColumns, k1: number, k2: number, a = 0, b = 0): string {
  if (!mappedAt(c, k1) || !mappedAt(c, k2)) return `\u0002${c.ip(k1)}\u0000${c.ip(k2)}\u0000${String.fromCharCode(a, b)}`;
  const x = c.addrs;
  const o1 = k1 * 16 + 12;
  const o2 = k2 * 16 + 12;
  return String.fromCharCode(
    1,
    ((x[o1] as number) << 8) | (x[o1 + 1] as number),
    ((x[o1 + 2] as number) << 8) | (x[o1 + 3] as number),
    ((x[o2] as number) << 8) | (x[o2 + 1] as number),
    ((x[o2 + 2] as number) << 8) | (x[o2 + 3] as number),
    a,
    b,
  );
}

const quad = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** The address text of an {@link addressKey} (what `c.ip(k)` returned). */
export function addressOfKey(key: string): string {
  return key.charCodeAt(0) === 1 ? quad(key.charCodeAt(1), key.charCodeAt(2)) : key.slice(1, key.indexOf('\u0000'));
}

/** The two address texts of an {@link addressPairKey}. */
export function addressesOfPairKey(key: string): [string, string] {
  if (key.charCodeAt(0) === 1) return [quad(key.charCodeAt(1), key.charCodeAt(2)), quad(key.charCodeAt(3), key.charCodeAt(4))];
  const a = key.indexOf('\u0000');
  return [key.slice(1, a), key.slice(a + 1, key.indexOf('\u0000', a + 1))];
}
