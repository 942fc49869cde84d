/**
 * The server names behind alerts and threats: which names (TLS/QUIC SNI, HTTP Host, the name the client resolved) the
 * flows of an alert, and a threat's address, were seen under. The detection engine feeds every flow batch to a
 * {@link ServerNameIndex} (bounded: least recently seen addresses and pairs forgotten first, a few names each) and
 * gives each finding the names of its address pair; the aggregator merges them into the alert and threat rows
 * (deduplicated, bounded by {@link mergeNames}).
 */
import { flowColumns, flowTexts } from '../native/flow-batch.js';
import { TEXT_COLUMN as T } from '../native/flow-columns.js';
import type { FlowRecord } from '../native/flow-record.js';
import { objectArray } from './arrays.js';
import { ipv4At, ipv4OfText } from './detectors/address.js';
import type { Finding } from './finding.js';
import { pairKey, RecentValues, reusableKey, setIpv4PairKey, setTextKey, type TableKey } from './lru-map.js';

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
  let n = name.toLowerCase();
  if (n.charCodeAt(n.length - 1) === 46) n = n.slice(0, -1); // one trailing '.' (as replace(/\.$/, '') drops it)
  if (n.length > MAX_NAME_LENGTH) n = n.slice(0, MAX_NAME_LENGTH);
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
    // The text column, not the records' getters: most flows have no name, and their texts are not read at all.
    const texts = flowTexts(flows);
    const out = new Array<string | null>(flows.length);
    for (let i = 0; i < flows.length; i++) out[i] = texts.hasText(T.serverName, i) ? normaliseName(texts.text(T.serverName, i)) : null;
    names = out;
    namesByBatch.set(flows, names);
  }
  return names;
}

/** `a` followed by the names of `b` it lacks, at most `max` (the first ones are kept: an alert keeps the names it opened with). */
export function mergeNames(a: readonly string[], b: readonly string[] | undefined, max: number): string[] {
  // An array of strings from the start, whether `a` is empty or not (see arrays.ts): `[...a]` of an empty `a` gave the
  // optimized alert planning an integer array the first time, and a deoptimization.
  const out = objectArray<string>();
  const m = Math.min(a.length, max);
  for (let i = 0; i < m; i++) out.push(a[i] as string);
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
  /**
   * Keys (lru-map.ts `TableKey`) are numeric where every address is IPv4 (a pair: the lower 32-bit value, then the
   * higher; an address: its value), else the text of the string API (`pairKey`, the address): the same key for the
   * same texts, without building and hashing a string per flow. Batches are read as columns for the same reason.
   */
  private readonly pairs: RecentValues<string>;
  private readonly servers: RecentValues<string>;
  private readonly key: TableKey = reusableKey();

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
    const c = flowColumns(flows);
    const n = c.n;
    for (let i = 0; i < n; i++) {
      const name = names[i] as string | null;
      if (name === null) continue;
      const src = ipv4At(c, i);
      const dst = ipv4At(c, n + i);
      this.pairs.addAt(src >= 0 && dst >= 0 ? setIpv4PairKey(this.key, src, dst) : setTextKey(this.key, pairKey(c.ip(i), c.ip(n + i))), name);
      this.servers.addAt(dst >= 0 ? setIpv4PairKey(this.key, dst, 0) : setTextKey(this.key, c.ip(n + i)), name);
    }
  }

  /** Names seen on flows between `a` and `b` (either direction), oldest first. */
  namesOfPair(a: string, b: string): readonly string[] {
    const va = ipv4OfText(a);
    const vb = ipv4OfText(b);
    return this.pairs.getAt(va >= 0 && vb >= 0 ? setIpv4PairKey(this.key, va, vb) : setTextKey(this.key, pairKey(a, b)));
  }

  /** Names `ip` was seen under as a server (by any client), oldest first. */
  namesOf(ip: string): readonly string[] {
    const v = ipv4OfText(ip);
    return this.servers.getAt(v >= 0 ? setIpv4PairKey(this.key, v, 0) : setTextKey(this.key, ip));
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
