/** Which addresses count as "local" for the inbound/outbound split and which clients count as loopback. */
import { isIP } from 'node:net';
import os from 'node:os';

const DOTTED = /^[\d.]+$/;

/** Strips the IPv4-mapped IPv6 prefix (`::ffff:10.0.0.1` -> `10.0.0.1`) and an IPv6 zone id. */
export function normaliseIp(ip: string): string {
  if (DOTTED.test(ip)) return ip; // already a plain IPv4 address (the common case: once per request)
  const zone = ip.indexOf('%');
  const noZone = zone === -1 ? ip : ip.slice(0, zone);
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(noZone);
  return (m ? m[1] : noZone).toLowerCase();
}

/** True for 127.0.0.0/8 and ::1 (after normalisation). */
export function isLoopback(ip: string): boolean {
  const n = normaliseIp(ip);
  return n === '::1' || (n.startsWith('127.') && isIP(n) === 4);
}

/** RFC 1918, link-local, loopback, CGNAT (v4); ULA, link-local, loopback (v6). */
export function isPrivate(ip: string): boolean {
  const n = normaliseIp(ip);
  if (isIP(n) === 4) {
    const [a, b] = n.split('.').map(Number);
    return a === 10 || a === 127 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127);
  }
  if (isIP(n) === 6) return n === '::1' || /^f[cd]/.test(n) || /^fe[89ab]/.test(n);
  return false;
}

/** A host is local when it is one of this machine's addresses or in a private range. */
export function localAddressClassifier(extra: readonly string[] = machineAddresses()): (ip: string) => boolean {
  const own = new Set(extra.map(normaliseIp));
  return (ip) => own.has(normaliseIp(ip)) || isPrivate(ip);
}

/** This machine's interface addresses. */
export function machineAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((a): a is os.NetworkInterfaceInfo => a !== undefined)
    .map((a) => a.address);
}
