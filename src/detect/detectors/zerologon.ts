/**
 * Zerologon (CVE-2020-1472) attempts (`exploit`): many Netlogon NetrServerReqChallenge + NetrServerAuthenticate*
 * requests against one server within a short window. The exploit sends an all-zero client credential until the
 * server accepts it (1 in 256 on average), one challenge/authenticate pair per try; a machine logging on to its domain
 * controller sends one pair. Then NetrServerPasswordSet2 resets the controller's machine password.
 *
 * Learned from corelight/zerologon `scripts/main.zeek` (counts per responder, because an attacker may use several
 * hosts; `cutoff` 20 pairs within `expire` 2 minutes; NetrServerPasswordSet2 after them is the successful exploit) and
 * the ET OPEN rules "ET EXPLOIT Possible Zerologon NetrServerReqChallenge with 0x00 Client Challenge" /
 * "... NetrServerAuthenticate with 0x00 Client Credentials" (Netlogon over DCE-RPC, any port). No code copied.
 * Severity `high`; `critical` when NetrServerPasswordSet2 follows.
 */
import type { ZerologonConfig } from '../../config/detection.js';
import { flowColumns } from '../../native/flow-batch.js';
import { FLOW_COLUMN as C } from '../../native/flow-columns.js';
import type { FlowRecord } from '../../native/flow-record.js';
import { ruleScore, type Detector, type Finding } from '../finding.js';

/** NetrServerReqChallenge. */
const REQ_CHALLENGE = 4;
/** NetrServerAuthenticate, NetrServerAuthenticate2, NetrServerAuthenticate3. */
const AUTHENTICATE: ReadonlySet<number> = new Set([5, 15, 26]);
/** NetrServerPasswordSet2. */
const PASSWORD_SET2 = 30;
/** Clients an alert lists. */
const MAX_CLIENTS = 8;

interface ServerState {
  /** Per flow: end time (epoch ms), challenges, authentications, password sets; in arrival order. */
  events: number[];
  clients: string[];
  port: number;
  /** Epoch ms until which this burst was reported (its later flows fold into the same alert). */
  reportedUntil: number;
  /** The burst's NetrServerPasswordSet2 was reported (critical), so later flows of it are not again. */
  reportedSuccess: boolean;
}

export class ZerologonDetector implements Detector {
  readonly name = 'zerologon';
  private readonly servers = new Map<string, ServerState>();

  constructor(
    private readonly config: ZerologonConfig,
    private readonly maxTracked: number,
  ) {}

  observe(flows: readonly FlowRecord[]): Finding[] {
    const out: Finding[] = [];
    const { cols, n } = flowColumns(flows);
    const windowMs = this.config.windowSec * 1000;
    for (let i = 0; i < n; i++) {
      if (!((cols[C.dcerpcRequests * n + i] as number) > 0)) continue;
      const f = flows[i] as FlowRecord;
      let challenges = 0;
      let auths = 0;
      let sets = 0;
      for (const op of f.dcerpc?.ops ?? []) {
        if (op.iface !== 'netlogon') continue;
        if (op.opnum === REQ_CHALLENGE) challenges += op.count;
        else if (AUTHENTICATE.has(op.opnum)) auths += op.count;
        else if (op.opnum === PASSWORD_SET2) sets += op.count;
      }
      if (challenges + auths + sets === 0) continue;
      let s = this.servers.get(f.dstIp);
      if (s === undefined) {
        s = { events: [], clients: [], port: f.dstPort, reportedUntil: 0, reportedSuccess: false };
        this.servers.set(f.dstIp, s);
        if (this.servers.size > this.maxTracked) this.servers.delete(this.servers.keys().next().value as string);
      }
      const t = f.lastSeenMs;
      s.events.push(t, challenges, auths, sets);
      if (!s.clients.includes(f.srcIp) && s.clients.length < MAX_CLIENTS) s.clients.push(f.srcIp);
      // Forget flows older than the window (events arrive roughly in time order).
      let cut = 0;
      while (cut < s.events.length && (s.events[cut] as number) < t - windowMs) cut += 4;
      if (cut > 0) s.events.splice(0, cut);
      let ch = 0;
      let au = 0;
      let ps = 0;
      for (let k = 0; k < s.events.length; k += 4) {
        ch += s.events[k + 1] as number;
        au += s.events[k + 2] as number;
        ps += s.events[k + 3] as number;
      }
      const min = this.config.minAttempts;
      if (ch < min || au < min) continue;
      const success = ps > 0;
      if (t <= s.reportedUntil && (!success || s.reportedSuccess)) continue;
      if (t > s.reportedUntil) s.reportedSuccess = false;
      s.reportedUntil = t + windowMs;
      if (success) s.reportedSuccess = true;
      const first = s.events[0] as number;
      out.push({
        category: 'exploit',
        source: 'rule',
        severity: success ? 'critical' : 'high',
        score: ruleScore(Math.min(ch, au), min),
        srcIp: f.srcIp,
        srcPort: null,
        dstIp: f.dstIp,
        dstPort: f.dstPort,
        protocol: 6,
        target: f.dstIp,
        threatIp: f.srcIp,
        title: success
          ? `Zerologon (CVE-2020-1472): ${f.dstIp}'s machine password reset after ${au} Netlogon authentication attempts`
          : `Zerologon (CVE-2020-1472) attempt: ${au} Netlogon authentications against ${f.dstIp} from ${f.srcIp}`,
        description:
          `${s.clients.join(', ')} sent ${ch} NetrServerReqChallenge and ${au} NetrServerAuthenticate requests to ` +
          `${f.dstIp} within ${this.config.windowSec} s (threshold ${min} each): a domain member logs on with one pair, ` +
          `the Zerologon exploit retries until an all-zero credential is accepted` +
          (success ? `; NetrServerPasswordSet2 followed (${ps}): the domain controller's password was probably reset.` : '.'),
        count: s.events.length / 4,
        firstSeenMs: first,
        lastSeenMs: t,
        details: {
          detector: 'zerologon',
          cve: 'CVE-2020-1472',
          reqChallenge: ch,
          authenticate: au,
          passwordSet2: ps,
          threshold: min,
          windowSec: this.config.windowSec,
          clients: s.clients,
          netlogonPort: s.port,
          countUnit: 'connections',
        },
      });
    }
    return out;
  }
}
