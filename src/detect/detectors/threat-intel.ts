/**
 * Traffic to or from what the user's threat lists name (`VIGIL_INTEL_FILES`, threat-intel.ts): a flow whose source or
 * destination address falls in a listed address or prefix, or whose server name (TLS/QUIC SNI, HTTP Host, the DNS
 * question, the name the client resolved) is a listed domain or one of its subdomains. One finding per (listed side,
 * other side) and batch (for a DNS question: per client and listed entry, the client being the host to look at),
 * severity high, with the list's file name and the entry in its details. Each flow counts once:
 * the snapshots of a long flow are judged as they come (an early warning) but not counted again.
 */
import type { FlowRecord } from '../../native/flow-record.js';
import { absorbFlow, type Detector, type Finding } from '../finding.js';
import { BoundedSet } from '../lru-map.js';
import type { IntelEntry, ThreatIntelIndex } from '../threat-intel.js';

/** Which field matched. */
type IntelField = 'src_ip' | 'dst_ip' | 'tls_sni' | 'http_host' | 'dns_query' | 'server_name';

interface IntelHit {
  entry: IntelEntry;
  field: IntelField;
  /** The flow's value that matched (an address or a name). */
  indicator: string;
}

/** The first listed indicator of `f`: its addresses first (remote side first), then its names. */
export function matchFlow(index: ThreatIntelIndex, f: FlowRecord): IntelHit | null {
  let e = index.matchAddress(f.dstIp);
  if (e) return { entry: e, field: 'dst_ip', indicator: f.dstIp };
  e = index.matchAddress(f.srcIp);
  if (e) return { entry: e, field: 'src_ip', indicator: f.srcIp };
  const names: Array<[IntelField, string | null | undefined]> = [
    ['tls_sni', f.tls?.sni],
    ['http_host', f.http?.host],
    ['dns_query', f.dns?.query],
    ['server_name', f.serverName],
  ];
  for (const [field, name] of names) {
    if (!name) continue;
    const hit = index.matchName(name);
    if (hit) return { entry: hit, field, indicator: name.toLowerCase() };
  }
  return null;
}

/**
 * Open flows already counted at a snapshot (id@firstSeenMs), oldest forgotten first. A flow's end forgets it, so a
 * later session that repeats ids and times (the same capture replayed) counts again.
 */
class CountedFlows {
  private readonly open: BoundedSet;
  constructor(max: number) {
    this.open = new BoundedSet(max);
  }
  /** True when `f` should count: a snapshot of a flow not yet counted, or the end of a flow never counted at a snapshot. */
  counts(f: FlowRecord): boolean {
    const key = `${f.id}@${f.firstSeenMs}`;
    if (f.endReason !== 'snapshot') return !this.open.delete(key);
    return this.open.add(key);
  }
}

/** The evidence every threat-list finding carries. */
function intelDetails(hit: IntelHit, direction: 'inbound' | 'outbound' | 'lookup'): Record<string, unknown> {
  return {
    detector: 'threat_intel',
    list: hit.entry.list,
    entry: hit.entry.entry,
    indicator: hit.indicator,
    field: hit.field,
    direction,
    countUnit: 'flows',
  };
}

/**
 * Traffic with a listed address or a listed server: the listed side (the matched address, or for a name the flow's
 * server) is the finding's source and threat, the other side its target.
 */
function contactFinding(f: FlowRecord, hit: IntelHit): Finding {
  const inbound = hit.field === 'src_ip';
  const listed = inbound ? f.srcIp : f.dstIp;
  const other = inbound ? f.dstIp : f.srcIp;
  const what = hit.field === 'src_ip' || hit.field === 'dst_ip' ? listed : `${listed} (${hit.indicator})`;
  return {
    category: 'threat_intel',
    source: 'rule',
    severity: 'high',
    score: null,
    srcIp: listed,
    srcPort: inbound ? f.srcPort : f.dstPort,
    dstIp: other,
    dstPort: inbound ? f.dstPort : f.srcPort,
    protocol: f.protocol,
    target: other,
    threatIp: listed,
    title: inbound ? `Traffic from ${what}, listed in ${hit.entry.list}` : `${other} contacted ${what}, listed in ${hit.entry.list}`,
    description: `${hit.indicator} matches entry ${hit.entry.entry} of the threat list ${hit.entry.list} (${hit.field.replace('_', ' ')}).`,
    count: 1,
    firstSeenMs: f.firstSeenMs,
    lastSeenMs: f.lastSeenMs,
    details: intelDetails(hit, inbound ? 'inbound' : 'outbound'),
  };
}

/**
 * A DNS question for a listed name: the resolver is no threat, the client that asked is the host to look at. One
 * alert per (client, listed entry).
 */
function lookupFinding(f: FlowRecord, hit: IntelHit): Finding {
  return {
    category: 'threat_intel',
    source: 'rule',
    severity: 'high',
    score: null,
    srcIp: f.srcIp,
    srcPort: f.srcPort,
    dstIp: f.dstIp,
    dstPort: f.dstPort,
    protocol: f.protocol,
    target: `dns:${hit.entry.entry}`,
    threatIp: f.srcIp,
    title: `${f.srcIp} looked up ${hit.indicator}, listed in ${hit.entry.list}`,
    description: `${f.srcIp} asked ${f.dstIp} for ${hit.indicator}, which matches entry ${hit.entry.entry} of the threat list ${hit.entry.list}.`,
    count: 1,
    firstSeenMs: f.firstSeenMs,
    lastSeenMs: f.lastSeenMs,
    details: intelDetails(hit, 'lookup'),
  };
}

export class ThreatIntelDetector implements Detector {
  readonly name = 'threat_intel';
  private readonly counted: CountedFlows;

  constructor(
    private readonly index: ThreatIntelIndex,
    maxTracked: number,
  ) {
    this.counted = new CountedFlows(maxTracked);
  }

  observe(flows: readonly FlowRecord[]): Finding[] {
    const byKey = new Map<string, Finding>();
    for (const f of flows) {
      const hit = matchFlow(this.index, f);
      if (hit === null) continue;
      // A flow counts once: at its first snapshot, or at its end when no snapshot came first.
      if (!this.counted.counts(f)) continue;
      const finding = hit.field === 'dns_query' ? lookupFinding(f, hit) : contactFinding(f, hit);
      const key = `${finding.srcIp}|${finding.target}|${hit.entry.list}|${hit.entry.entry}`;
      const seen = byKey.get(key);
      if (seen) {
        absorbFlow(seen, f);
        continue;
      }
      byKey.set(key, finding);
    }
    return [...byKey.values()];
  }
}
