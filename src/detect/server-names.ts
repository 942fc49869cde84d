/**
 * The server names behind alerts and threats: which names (TLS/QUIC SNI, HTTP Host, the name the client resolved) the
 * flows of an alert, and a threat's address, were seen under. The detection engine feeds every flow batch to a
 * {@link ServerNameIndex} (bounded: least recently seen addresses and pairs forgotten first, a few names each) and
 * gives each finding the names of its address pair; the aggregator merges them into the alert and threat rows
 * (deduplicated, bounded by {@link mergeNames}).
 */
import type { FlowRecord } from '../native/flow-record.js';
import type { Finding } from './finding.js';
import { pairKey, RecentValues } from './lru-map.js';

/** Names an alert keeps. */
export const MAX_ALERT_NAMES = 5;
/** Names a threat keeps. */
export const MAX_THREAT_NAMES = 10;
/** Longest name kept (the capture core caps names at 255 bytes too). */
export const MAX_NAME_LENGTH = 255;
/** Address pairs and server addresses the index remembers (each). */
export const MAX_INDEXED = 4096;

/** A flow's server name as kept (lower case, no trailing dot, at most {@link MAX_NAME_LENGTH}); null when none. */
export function normaliseName(name: string | null | undefined): string | null {
  if (!name) return null;
  const n = name.toLowerCase().replace(/\.$/, '').slice(0, MAX_NAME_LENGTH);
  return n === '' ? null : n;
}

/** Each batch's normalised server names, once per batch (the index and the beacon detector both read them). */
const namesByBatch = new WeakMap<readonly FlowRecord[], ReadonlyArray<string | null>>();

/**
 * The {@link normaliseName} of every flow's `serverName` in a batch, aligned with it: computed at the first call for a
 * batch and remembered while the batch lives (as flow-batch.ts `flowColumns` remembers its columns), so the consumers
 * of one batch decode and lower-case each name once.
 */
export function serverNamesOf(flows: readonly FlowRecord[]): ReadonlyArray<string | null> {
  let names = namesByBatch.get(flows);
  if (names === undefined) {
    const out = new Array<string | null>(flows.length);
    for (let i = 0; i < flows.length; i++) out[i] = normaliseName((flows[i] as FlowRecord).serverName);
    names = out;
    namesByBatch.set(flows, names);
  }
  return names;
}

/** `a` followed by the names of `b` it lacks, at most `max` (the first ones are kept: an alert keeps the names it opened with). */
export function mergeNames(a: readonly string[], b: readonly string[] | undefined, max: number): string[] {
  const out = a.length > max ? a.slice(0, max) : [...a];
  if (b === undefined) return out;
  for (const n of b) {
    if (out.length >= max) break;
    if (!out.includes(n)) out.push(n);
  }
  return out;
}

/** A stored `server_names` column back to names; anything but a JSON array of strings gives []. */
export function parseNames(text: string | null | undefined): string[] {
  if (!text) return [];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.filter((n): n is string => typeof n === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Names seen per address pair (either direction) and per server address, from the flows' `serverName`. Memory is
 * bounded: at most {@link MAX_INDEXED} pairs and as many addresses, each with its {@link MAX_ALERT_NAMES} newest names.
 */
export class ServerNameIndex {
  private readonly pairs: RecentValues<string>;
  private readonly servers: RecentValues<string>;

  constructor(maxIndexed = MAX_INDEXED) {
    this.pairs = new RecentValues<string>(maxIndexed, MAX_ALERT_NAMES, (n) => n);
    this.servers = new RecentValues<string>(maxIndexed, MAX_ALERT_NAMES, (n) => n);
  }

  /** Pairs and addresses remembered now. */
  get size(): { pairs: number; servers: number } {
    return { pairs: this.pairs.size, servers: this.servers.size };
  }

  /** Learns the names of a batch's flows (the responder, `dstIp`, is the server a name names). */
  observe(flows: readonly FlowRecord[]): void {
    const names = serverNamesOf(flows);
    for (let i = 0; i < flows.length; i++) {
      const name = names[i] as string | null;
      if (name === null) continue;
      const f = flows[i] as FlowRecord;
      this.pairs.add(pairKey(f.srcIp, f.dstIp), name);
      this.servers.add(f.dstIp, name);
    }
  }

  /** Names seen on flows between `a` and `b` (either direction), oldest first. */
  namesOfPair(a: string, b: string): readonly string[] {
    return this.pairs.get(pairKey(a, b));
  }

  /** Names `ip` was seen under as a server (by any client), oldest first. */
  namesOf(ip: string): readonly string[] {
    return this.servers.get(ip);
  }

  /**
   * Sets a finding's names: `serverNames` from the flows between its source and destination (none for a finding
   * without one destination, such as a horizontal scan), `threatServerNames` from its threat address.
   */
  annotate(f: Finding): void {
    const names = f.dstIp === null ? [] : this.namesOfPair(f.srcIp, f.dstIp);
    if (names.length > 0) f.serverNames = mergeNames(f.serverNames ?? [], names, MAX_ALERT_NAMES);
    const threatNames = this.namesOf(f.threatIp);
    if (threatNames.length > 0) f.threatServerNames = mergeNames(f.threatServerNames ?? [], threatNames, MAX_THREAT_NAMES);
  }
}
