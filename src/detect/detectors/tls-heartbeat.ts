/**
 * TLS heartbeat abuse (`exploit`): Heartbleed (CVE-2014-0160) and heartbeat scans, from the heartbeat records the
 * capture core counts per side of each TLS connection (`tls.heartbeats`, docs/app-layer.md).
 *
 * The signals are Zeek's `scripts/policy/protocols/ssl/heartbleed.zeek` and the ET OPEN heartbeat rules, read for
 * their logic (no code copied):
 * - `overlong_request` (high): a plaintext heartbeat request claims more payload than its record carries, after the
 *   3-byte header and 16 bytes of padding (Zeek `SSL_Heartbeat_Attack` "heartbleed attack detected"; ET
 *   "Malformed HeartBeat Request"). The side that sent it is the attacker.
 * - `large_response` (critical): the server's largest heartbeat is more than {@link LARGE_RESPONSE_BYTES} bytes longer
 *   than the client's largest request: memory came back with it (Zeek `SSL_Heartbeat_Attack_Success`; ET "Possible
 *   OpenSSL HeartBleed Large HeartBeat Response"). An overlong request that the server answered at all is the same.
 * - `early_heartbeat` (medium): a heartbeat before any application data of the connection (Zeek "Heartbeat before
 *   ciphertext. Probable attack or scan"): honest stacks send heartbeats to keep an idle session alive, not during the
 *   handshake.
 * - `short_heartbeat` (medium): a record shorter than RFC 6520's 19-byte minimum (Zeek `SSL_Heartbeat_Odd_Length`).
 * - `unanswered_requests` (medium): more than {@link UNANSWERED} heartbeats from one side than the other sent back
 *   (Zeek `SSL_Heartbeat_Many_Requests`, both ways).
 *
 * Heartbeats are rare in honest TLS over TCP (browsers never negotiate the extension, TLS 1.3 removed it), so any one
 * of these signals is reported; the severity is the strongest signal's. One finding per (attacker, victim, port) and
 * batch, counting connections.
 */
import { flowColumns } from '../../native/flow-batch.js';
import { FLOW_COLUMN as C, SNAPSHOT_REASON } from '../../native/flow-columns.js';
import type { FlowRecord, FlowTlsHeartbeatSide } from '../../native/flow-record.js';
import { severityRank, type Severity } from '../../domain/alert.js';
import { ruleScore, type Detector, type Finding } from '../finding.js';

/** A server heartbeat this much longer than the client's largest request carries more than an echo (bytes). */
export const LARGE_RESPONSE_BYTES = 64;
/** Heartbeats one side may send beyond the other's before they count as unanswered (Zeek's "+ 3"). */
export const UNANSWERED = 3;

/** The signals, with their severity, in the order the module comment gives them. */
export const HEARTBEAT_SIGNALS = Object.freeze({
  overlong_request: 'high',
  large_response: 'critical',
  early_heartbeat: 'medium',
  short_heartbeat: 'medium',
  unanswered_requests: 'medium',
} as const satisfies Record<string, Severity>);

export type HeartbeatSignal = keyof typeof HEARTBEAT_SIGNALS;

/** What one connection's heartbeats say: the signals, and which side is the attacker. */
export interface HeartbeatVerdict {
  signals: HeartbeatSignal[];
  /** `client` (the initiator) or `server`: the side whose heartbeats are the attack. */
  attacker: 'client' | 'server';
  severity: Severity;
}

/** The verdict on one connection's heartbeats; null when they say nothing. */
export function judgeHeartbeats(client: FlowTlsHeartbeatSide, server: FlowTlsHeartbeatSide): HeartbeatVerdict | null {
  const signals = new Set<HeartbeatSignal>();
  // The attacker is the side whose requests are malformed or early; by default the client, as in Zeek (requests come
  // from the originator).
  const serverFirst = server.records > 0 && (server.overlong || (server.early && !client.early)) && !client.overlong;
  const attacker: 'client' | 'server' = serverFirst ? 'server' : 'client';
  const a = serverFirst ? server : client;
  const v = serverFirst ? client : server;
  if (a.overlong) signals.add('overlong_request');
  if (a.overlong && v.records > 0) signals.add('large_response');
  if (attacker === 'client' && client.records > 0 && server.maxLen > client.maxLen + LARGE_RESPONSE_BYTES) signals.add('large_response');
  if (a.early) signals.add('early_heartbeat');
  if (a.short) signals.add('short_heartbeat');
  if (Math.abs(client.records - server.records) > UNANSWERED) signals.add('unanswered_requests');
  if (signals.size === 0) return null;
  const list = (Object.keys(HEARTBEAT_SIGNALS) as HeartbeatSignal[]).filter((s) => signals.has(s));
  let severity: Severity = 'low';
  for (const s of list) if (severityRank(HEARTBEAT_SIGNALS[s]) > severityRank(severity)) severity = HEARTBEAT_SIGNALS[s];
  return { signals: list, attacker, severity };
}

interface Pending {
  attacker: string;
  victim: string;
  port: number;
  severity: Severity;
  signals: Set<HeartbeatSignal>;
  connections: number;
  firstMs: number;
  lastMs: number;
  example: { client: FlowTlsHeartbeatSide; server: FlowTlsHeartbeatSide; sni: string | null; version: string | null };
}

export class TlsHeartbeatDetector implements Detector {
  readonly name = 'tls_heartbeat';

  observe(flows: readonly FlowRecord[]): Finding[] {
    const pending = new Map<string, Pending>();
    const { cols, n } = flowColumns(flows);
    for (let i = 0; i < n; i++) {
      // Only TCP flows with a TLS label; snapshots repeat a flow's totals (its end record judges it).
      if (cols[C.protocol * n + i] !== 6 || cols[C.endReason * n + i] === SNAPSHOT_REASON) continue;
      // Only flows with a heartbeat (or its flags): the TLS fields are decoded for those alone.
      if (cols[C.tlsHbClient * n + i] === 0 && cols[C.tlsHbServer * n + i] === 0 && cols[C.tlsHbFlags * n + i] === 0) continue;
      const f = flows[i] as FlowRecord;
      const hb = f.tls?.heartbeats;
      if (!hb) continue;
      const verdict = judgeHeartbeats(hb.client, hb.server);
      if (verdict === null) continue;
      const attacker = verdict.attacker === 'client' ? f.srcIp : f.dstIp;
      const victim = verdict.attacker === 'client' ? f.dstIp : f.srcIp;
      const key = `${attacker}|${victim}|${f.dstPort}`;
      let p = pending.get(key);
      if (p === undefined) {
        const example = { client: hb.client, server: hb.server, sni: f.tls?.sni ?? null, version: f.tls?.version ?? null };
        p = { attacker, victim, port: f.dstPort, severity: 'low', signals: new Set(), connections: 0, firstMs: f.firstSeenMs, lastMs: f.lastSeenMs, example };
        pending.set(key, p);
      }
      p.connections++;
      p.firstMs = Math.min(p.firstMs, f.firstSeenMs);
      p.lastMs = Math.max(p.lastMs, f.lastSeenMs);
      for (const s of verdict.signals) p.signals.add(s);
      if (severityRank(verdict.severity) > severityRank(p.severity)) p.severity = verdict.severity;
    }
    const out: Finding[] = [];
    for (const p of pending.values()) {
      const signals = (Object.keys(HEARTBEAT_SIGNALS) as HeartbeatSignal[]).filter((s) => p.signals.has(s));
      const exploited = p.signals.has('large_response');
      out.push({
        category: 'exploit',
        source: 'rule',
        severity: p.severity,
        score: ruleScore(signals.length + (exploited ? 2 : 0), 1),
        srcIp: p.attacker,
        srcPort: null,
        dstIp: p.victim,
        dstPort: p.port,
        protocol: 6,
        target: `${p.victim}:${p.port}/6`,
        threatIp: p.attacker,
        title: `TLS heartbeat ${exploited ? 'over-read (Heartbleed, probably leaked memory)' : 'attack (Heartbleed)'} from ${p.attacker} against ${p.victim}:${p.port}`,
        description:
          `${p.connections} TLS connection${p.connections === 1 ? '' : 's'} from ${p.attacker} to ${p.victim}:${p.port} carried heartbeats ` +
          `that match ${signals.join(', ')} (CVE-2014-0160 patterns from Zeek's heartbleed policy and the ET OPEN rules).`,
        count: p.connections,
        firstSeenMs: p.firstMs,
        lastSeenMs: p.lastMs,
        details: {
          detector: 'tls_heartbeat',
          cve: 'CVE-2014-0160',
          signals,
          connections: p.connections,
          heartbeats: { client: p.example.client, server: p.example.server },
          sni: p.example.sni,
          tlsVersion: p.example.version,
          thresholds: { largeResponseBytes: LARGE_RESPONSE_BYTES, unanswered: UNANSWERED, minRecordBytes: 19 },
          countUnit: 'connections',
        },
      });
    }
    return out;
  }
}
