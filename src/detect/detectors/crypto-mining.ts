/**
 * Crypto-currency mining (`malware`, `details.kind = 'crypto_mining'`): a connection the capture core recognised as
 * Stratum by its content (`app` `stratum`, native/app/stratum.cpp: a JSON-RPC message naming `mining.subscribe`,
 * `eth_submitLogin`, a Monero pool `login` with the miner's `agent`, ...). On a desktop, a miner nobody installed is
 * how cryptojacking malware pays: the ET OPEN "ET COINMINER" rules (Stratum logins and job messages, e.g. "ET
 * COINMINER JSON stratum protocol mining.subscribe") and nDPI's `NDPI_PROTOCOL_MINING` (`src/lib/protocols/mining.c`,
 * flagged as a risk) raise it the same way, on content rather than on pool ports or names. Read for their logic, no
 * code copied.
 *
 * `medium`: the owner may mine on purpose (a suppression rule for the pool or the host silences it). The miner is the
 * end that is not the pool: the private end of a private-global pair, else the flow's client (its initiator, or the
 * higher port when the capture began mid-connection). The threat is the pool. One finding per connection, at its
 * first record (a snapshot of a long session, or its end), counting connections.
 */
import { flowColumns } from '../../native/flow-batch.js';
import { APP_BY, APP_NAMES, FLOW_COLUMN as C, SNAPSHOT_REASON } from '../../native/flow-columns.js';
import type { FlowRecord } from '../../native/flow-record.js';
import { isGlobalAddress } from '../../net/classify.js';
import { ruleScore, type Detector, type Finding } from '../finding.js';

const STRATUM = APP_NAMES.indexOf('stratum');
const CONTENT = APP_BY.indexOf('content');

export class CryptoMiningDetector implements Detector {
  readonly name = 'crypto_mining';
  /** Connections already reported, by flow id and start (ms), oldest first; a finished one is forgotten. */
  private readonly reported = new Set<string>();

  constructor(private readonly maxTracked: number) {}

  observe(flows: readonly FlowRecord[]): Finding[] {
    const { cols, n } = flowColumns(flows);
    let out: Finding[] | null = null;
    for (let i = 0; i < n; i++) {
      if (cols[C.app * n + i] !== STRATUM || cols[C.appBy * n + i] !== CONTENT) continue;
      const f = flows[i] as FlowRecord;
      const key = `${f.id}|${f.firstSeenMs}`;
      const snapshot = cols[C.endReason * n + i] === SNAPSHOT_REASON;
      if (this.reported.has(key)) {
        if (!snapshot) this.reported.delete(key);
        continue;
      }
      if (snapshot) {
        this.reported.add(key);
        if (this.reported.size > this.maxTracked) this.reported.delete(this.reported.values().next().value as string);
      }
      (out ??= []).push(this.finding(f));
    }
    return out ?? [];
  }

  private finding(f: FlowRecord): Finding {
    const srcGlobal = isGlobalAddress(f.srcIp);
    const dstGlobal = isGlobalAddress(f.dstIp);
    // The miner: the private end of a private-global pair, else the client (the higher port, when the capture began
    // mid-connection and the pool's answer came first).
    const srcIsMiner = srcGlobal !== dstGlobal ? !srcGlobal : f.srcPort >= f.dstPort;
    const miner = srcIsMiner ? f.srcIp : f.dstIp;
    const pool = srcIsMiner ? f.dstIp : f.srcIp;
    const poolPort = srcIsMiner ? f.dstPort : f.srcPort;
    const name = f.serverName ?? null;
    return {
      category: 'malware',
      source: 'rule',
      severity: 'medium',
      score: ruleScore(1, 1),
      srcIp: miner,
      srcPort: null,
      dstIp: pool,
      dstPort: poolPort,
      protocol: 6,
      target: `${pool}:${poolPort}/6`,
      threatIp: pool,
      title: `Crypto-currency mining from ${miner} to ${name ?? pool}:${poolPort}`,
      description:
        `${miner} speaks Stratum, the mining pools' protocol, with ${pool}:${poolPort}${name ? ` (${name})` : ''}: a miner ` +
        `runs on it. Cryptojacking malware installs one; if the owner mines on purpose, a suppression rule silences this.`,
      count: 1,
      firstSeenMs: f.firstSeenMs,
      lastSeenMs: f.lastSeenMs,
      details: {
        detector: 'crypto_mining',
        kind: 'crypto_mining',
        protocol: 'stratum',
        pool: `${pool}:${poolPort}`,
        ...(name ? { serverName: name } : {}),
        countUnit: 'connections',
      },
    };
  }
}
