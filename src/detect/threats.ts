/**
 * Threats: one row per offending address (the finding's `threatIp`) with the worst severity, highest score, the
 * category of its worst alert, how many alerts it has, first/last seen, a location (null for non-global addresses)
 * and the server names the address was seen under (server-names.ts). The blocked flag is not stored: readers ask the firewall (`isBlocked`) when they list threats.
 * Unspecified addresses (0.0.0.0, ::) never become threats: they name no host (a DHCP client asking for an address
 * sends from 0.0.0.0), so there is nothing to map or block; their alerts are still stored (net/classify.ts
 * `isThreatAddress` decides).
 */
import { maxSeverity, severityRank, type ProgramRef, type Severity } from '../domain/alert.js';
import type { ThreatRow } from '../store/tables/threat.table.js';
import type { GeoLocation } from './geo.js';
import { MAX_THREAT_PROGRAMS, mergePrograms, programsColumn } from './programs.js';
import { MAX_THREAT_NAMES, mergeNames, parseNames } from './server-names.js';

/** What one recorded alert contributes to its threat. */
export interface ThreatUpdate {
  ip: string;
  severity: Severity;
  score: number | null;
  category: string;
  /** True when the alert was just created (the threat's alert count grows by one). */
  newAlert: boolean;
  firstSeen: string;
  lastSeen: string;
  /** Server names the address was seen under (merged into the threat's, deduplicated, at most 10). */
  serverNames?: readonly string[];
  /** Local programs seen talking with the address (merged into the threat's, by executable, at most 10). */
  programs?: readonly ProgramRef[];
}

/** The higher of two scores, either of which may be absent (null). */
export function maxScore(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.max(a, b);
}

/**
 * The threat row of `u.ip` after folding `u` into `prev` (the stored row, or the row a batch is about to store; undefined
 * for a new threat). `location` is used when the row has none yet. Pure: the alert aggregator folds every alert of a
 * batch into its address's row with it, and the store writes the result once per batch.
 */
export function nextThreatRow(prev: ThreatRow | undefined, u: ThreatUpdate, location: GeoLocation | null, nowIso: string): ThreatRow {
  if (!prev) {
    return {
      ip: u.ip,
      severity: u.severity,
      score: u.score,
      category: u.category,
      alerts: u.newAlert ? 1 : 0,
      first_seen: u.firstSeen,
      last_seen: u.lastSeen,
      country: location?.country ?? null,
      country_code: location?.countryCode ?? null,
      city: location?.city ?? null,
      latitude: location?.latitude ?? null,
      longitude: location?.longitude ?? null,
      updated_at: nowIso,
      server_names: JSON.stringify(mergeNames([], u.serverNames, MAX_THREAT_NAMES)),
      programs: JSON.stringify(mergePrograms([], u.programs, MAX_THREAT_PROGRAMS)),
    };
  }
  const worse = severityRank(u.severity) > severityRank(prev.severity);
  const keepLocation = prev.latitude !== null;
  return {
    ip: prev.ip,
    severity: maxSeverity(prev.severity, u.severity),
    score: maxScore(prev.score, u.score),
    category: worse ? u.category : prev.category,
    alerts: prev.alerts + (u.newAlert ? 1 : 0),
    first_seen: u.firstSeen < prev.first_seen ? u.firstSeen : prev.first_seen,
    last_seen: u.lastSeen > prev.last_seen ? u.lastSeen : prev.last_seen,
    country: keepLocation ? prev.country : (location?.country ?? null),
    country_code: keepLocation ? prev.country_code : (location?.countryCode ?? null),
    city: keepLocation ? prev.city : (location?.city ?? null),
    latitude: keepLocation ? prev.latitude : (location?.latitude ?? null),
    longitude: keepLocation ? prev.longitude : (location?.longitude ?? null),
    updated_at: nowIso,
    server_names:
      u.serverNames === undefined || u.serverNames.length === 0
        ? prev.server_names
        : JSON.stringify(mergeNames(parseNames(prev.server_names), u.serverNames, MAX_THREAT_NAMES)),
    programs: programsColumn(prev.programs, u.programs, MAX_THREAT_PROGRAMS),
  };
}
