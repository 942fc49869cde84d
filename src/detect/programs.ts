/**
 * The programs behind alerts and threats: which local programs (the processes that owned the flows' sockets, live
 * capture on Linux; docs/process.md) talked on an alert's flows and to a threat's address. The detection engine feeds
 * every flow batch to a {@link ProgramIndex} (bounded: least recently seen pairs and addresses forgotten first, a few
 * programs each) and gives each finding the programs of its address pair; the aggregator merges them into the alert
 * and threat rows (deduplicated by executable, bounded by {@link mergePrograms}). Mirrors server-names.ts.
 */
import type { ProgramRef } from '../domain/alert.js';
import { flowColumns } from '../native/flow-batch.js';
import type { FlowRecord } from '../native/flow-record.js';
import { ipv4At, ipv4OfText } from './detectors/address.js';
import type { Finding } from './finding.js';
import { pairKey, RecentValues, reusableKey, setIpv4PairKey, setTextKey, type TableKey } from './lru-map.js';

/** Programs an alert keeps. */
export const MAX_ALERT_PROGRAMS = 5;
/** Programs a threat keeps. */
export const MAX_THREAT_PROGRAMS = 10;
/** Pairs and addresses the index remembers (each). */
export const MAX_INDEXED = 4096;
/** Longest text kept: names and users (the capture core's names are at most 15 bytes) and paths (PATH_MAX). */
const MAX_TEXT = 255;
const MAX_PATH = 4096;

/** A program's identity: its executable, else its process name (two processes of one program are one entry). */
const programKey = (p: ProgramRef): string => p.exe ?? `comm:${p.name ?? ''}`;

/** A flow's program as kept, or null when the flow has no process. */
export function programOfFlow(f: Pick<FlowRecord, 'process'>): ProgramRef | null {
  const p = f.process;
  if (!p) return null;
  return {
    name: p.name ? p.name.slice(0, MAX_TEXT) : null,
    exe: p.exe ? p.exe.slice(0, MAX_PATH) : null,
    pid: p.pid,
    user: p.user ? p.user.slice(0, MAX_TEXT) : null,
  };
}

/** `a` followed by the programs of `b` it lacks (by executable), at most `max` (the first ones are kept). */
export function mergePrograms(a: readonly ProgramRef[], b: readonly ProgramRef[] | undefined, max: number): ProgramRef[] {
  const out = a.length > max ? a.slice(0, max) : [...a];
  if (b === undefined) return out;
  const keys = new Set(out.map(programKey));
  for (const p of b) {
    if (out.length >= max) break;
    const k = programKey(p);
    if (keys.has(k)) continue;
    keys.add(k);
    out.push(p);
  }
  return out;
}

const textOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** A stored `programs` column back to programs; anything but a JSON array of program objects gives []. */
export function parsePrograms(text: string | null | undefined): ProgramRef[] {
  if (!text) return [];
  try {
    const v: unknown = JSON.parse(text);
    if (!Array.isArray(v)) return [];
    const out: ProgramRef[] = [];
    for (const p of v as unknown[]) {
      if (typeof p !== 'object' || p === null) continue;
      const o = p as Record<string, unknown>;
      if (typeof o.pid !== 'number') continue;
      out.push({ name: textOrNull(o.name), exe: textOrNull(o.exe), pid: o.pid, user: textOrNull(o.user) });
    }
    return out;
  } catch {
    return [];
  }
}

/** The column text of `programs` merged into the stored `column` (unchanged text when nothing is new). */
export function programsColumn(column: string, programs: readonly ProgramRef[] | undefined, max: number): string {
  if (programs === undefined || programs.length === 0) return column;
  const prev = parsePrograms(column);
  const next = mergePrograms(prev, programs, max);
  return next.length === prev.length ? column : JSON.stringify(next);
}

/**
 * Programs seen per address pair (either direction) and per address (either end: the process is on this host's end,
 * the address may be either), from the flows' `process`. Memory is bounded: at most {@link MAX_INDEXED} pairs and as
 * many addresses, each with its {@link MAX_ALERT_PROGRAMS} newest programs.
 */
export class ProgramIndex {
  /**
   * Keys (lru-map.ts `TableKey`) as server-names.ts makes them: numeric where every address is IPv4 (a pair: the lower
   * 32-bit value, then the higher; an address: 0, then its value), else the text of the string API (`pairKey`, the
   * address). The same key for the same texts, without building and hashing a pair string per flow.
   */
  private readonly pairs: RecentValues<ProgramRef>;
  private readonly addresses: RecentValues<ProgramRef>;
  private readonly key: TableKey = reusableKey();

  constructor(maxIndexed = MAX_INDEXED) {
    this.pairs = new RecentValues<ProgramRef>(maxIndexed, MAX_ALERT_PROGRAMS, programKey);
    this.addresses = new RecentValues<ProgramRef>(maxIndexed, MAX_ALERT_PROGRAMS, programKey);
  }

  get size(): { pairs: number; addresses: number } {
    return { pairs: this.pairs.size, addresses: this.addresses.size };
  }

  /** Learns the programs of a batch's flows. */
  observe(flows: readonly FlowRecord[]): void {
    const c = flowColumns(flows);
    const n = c.n;
    for (let i = 0; i < n; i++) {
      const f = flows[i] as FlowRecord;
      if (!f.process) continue;
      const p = programOfFlow(f) as ProgramRef;
      const src = ipv4At(c, i);
      const dst = ipv4At(c, n + i);
      this.pairs.addAt(src >= 0 && dst >= 0 ? setIpv4PairKey(this.key, src, dst) : setTextKey(this.key, pairKey(c.ip(i), c.ip(n + i))), p);
      this.addresses.addAt(src >= 0 ? setIpv4PairKey(this.key, src, 0) : setTextKey(this.key, c.ip(i)), p);
      this.addresses.addAt(dst >= 0 ? setIpv4PairKey(this.key, dst, 0) : setTextKey(this.key, c.ip(n + i)), p);
    }
  }

  /** Programs seen on flows between `a` and `b` (either direction), oldest first. */
  programsOfPair(a: string, b: string): readonly ProgramRef[] {
    const va = ipv4OfText(a);
    const vb = ipv4OfText(b);
    return this.pairs.getAt(va >= 0 && vb >= 0 ? setIpv4PairKey(this.key, va, vb) : setTextKey(this.key, pairKey(a, b)));
  }

  /** Programs seen talking with `ip`, oldest first. */
  programsOf(ip: string): readonly ProgramRef[] {
    const v = ipv4OfText(ip);
    return this.addresses.getAt(v >= 0 ? setIpv4PairKey(this.key, v, 0) : setTextKey(this.key, ip));
  }

  /**
   * Sets a finding's programs: `programs` from the flows between its source and destination (none for a finding
   * without one destination, such as a horizontal scan: every program of the host would be named), `threatPrograms`
   * from its threat address.
   */
  annotate(f: Finding): void {
    const programs = f.dstIp === null ? [] : this.programsOfPair(f.srcIp, f.dstIp);
    if (programs.length > 0) f.programs = mergePrograms(f.programs ?? [], programs, MAX_ALERT_PROGRAMS);
    const threat = this.programsOf(f.threatIp);
    if (threat.length > 0) f.threatPrograms = mergePrograms(f.threatPrograms ?? [], threat, MAX_THREAT_PROGRAMS);
  }
}
