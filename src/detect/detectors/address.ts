/** Shared address tests for the detectors (allocation-free: they run once per flow). */

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
