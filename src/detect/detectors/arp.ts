/**
 * ARP detector: layer 2 has no flows, so it reads the capture core's ARP bindings (one per sender IP and sender MAC,
 * with running totals: src/native/capture.ts `ArpBinding`) and raises
 * - `arp_spoofing` when one IP is claimed by a second MAC while the first still holds it: the second MAC's claim
 *   (`mac_changed`, medium), both MACs answering for it (`conflicting_replies`, high) or the newcomer announcing it
 *   with gratuitous replies (`gratuitous_claim`, high); a claim on a gateway (`VIGIL_DETECT_ARP_GATEWAYS`) is one
 *   level higher. The claimant's own IP (another IP its MAC holds) is the alert's source and threat, as in Slips'
 *   `detect_MITM_ARP_attack` (a MAC seen for one IP now claiming another); arpwatch calls the same event "changed
 *   ethernet address" and, when the old MAC comes back, "flip flop".
 * - `port_scan` with `details.kind = 'arp_sweep'` when one sender asks for many addresses within a short window
 *   (Slips `modules/arp/arp.py` `check_arp_scan`: 5 distinct targets within 30 s). The core counts, per binding, the
 *   runs of consecutive requests to the same target (`targetRuns`), which equals the targets asked for in a sweep; as
 *   it also counts alternation between two addresses, the default threshold is higher than Slips'.
 *
 * Probes from 0.0.0.0 (RFC 5227) claim nothing and are skipped, as Slips does. State is bounded: at most
 * `maxTracked` IPs and as many bindings, the least recently seen forgotten first.
 */
import type { ArpConfig } from '../../config/detection.js';
import type { ArpBinding } from '../../native/capture.js';
import { ruleScore, shiftSeverity, type Finding } from '../finding.js';
import type { Severity } from '../../domain/alert.js';

/** One MAC's claim to one IP, with the totals of its binding when last seen. */
interface Claim {
  mac: string;
  firstMs: number;
  lastMs: number;
  /** Last time this MAC sent a reply for the IP (epoch ms); -Infinity when it never did. */
  lastReplyMs: number;
  requests: number;
  replies: number;
  gratuitous: number;
  targetRuns: number;
  /** When a spoofing finding about this claim was last made (epoch ms), -Infinity when never. */
  reportedMs: number;
}

/** Targets asked for by one binding, in (time, count) pairs within the sweep window. */
interface SweepState {
  events: number[];
  sum: number;
  /** The sum already reported (a finding is made again only when it grows). */
  reported: number;
}

const MAX_CLAIMS_PER_IP = 4;

/** What an {@link ArpDetector} judges: bindings as the sensor's `arp` event delivers them. */
export interface ArpObserver {
  readonly name: string;
  observeArp(bindings: readonly ArpBinding[]): Finding[];
}

export class ArpDetector implements ArpObserver {
  readonly name = 'arp';
  /** Claims per IP (Map order = least recently updated first). */
  private readonly claims = new Map<string, Claim[]>();
  /** IPs per MAC (the claimant's own addresses), most recent last. */
  /**
   * The MAC's own IPs: those it sent ordinary (not gratuitous) requests from, as a host asks from its own address.
   * Never the IPs it only answers for: those may be its victims.
   */
  private readonly ipsOfMac = new Map<string, string[]>();
  private readonly sweeps = new Map<string, SweepState>();
  /** Per MAC: the IPs it answered for (last reply, epoch ms) and when it was last reported. */
  private readonly repliesOfMac = new Map<string, { answered: Map<string, number>; reportedMs: number }>();
  private readonly gateways: ReadonlySet<string>;

  constructor(
    private readonly config: ArpConfig,
    private readonly maxTracked: number,
  ) {
    this.gateways = new Set(config.gateways);
  }

  observeArp(bindings: readonly ArpBinding[]): Finding[] {
    const out: Finding[] = [];
    for (const b of bindings) {
      if (b.senderIp === '0.0.0.0') continue;
      const firstMs = Date.parse(b.firstSeen);
      const lastMs = Date.parse(b.lastSeen);
      const sweep = this.sweep(b, lastMs);
      if (sweep) out.push(sweep);
      if (b.requests > b.gratuitous) this.rememberIp(b.senderMac, b.senderIp);
      const prev = this.claims.get(b.senderIp)?.find((x) => x.mac === b.senderMac);
      const newReplies = b.replies - (prev?.replies ?? 0);
      const spoof = this.claim(b, firstMs, lastMs);
      if (spoof) out.push(spoof);
      const many = this.answers(b, lastMs, newReplies, spoof === null);
      if (many) out.push(many);
    }
    this.cap(this.claims);
    this.cap(this.sweeps);
    this.cap(this.ipsOfMac);
    this.cap(this.repliesOfMac);
    return out;
  }

  private cap(map: Map<string, unknown>): void {
    while (map.size > this.maxTracked) map.delete(map.keys().next().value as string);
  }

  /** Updates the IP's claims with binding `b`; a finding when another MAC still holds the IP. */
  private claim(b: ArpBinding, firstMs: number, lastMs: number): Finding | null {
    let list = this.claims.get(b.senderIp);
    if (list === undefined) list = [];
    else this.claims.delete(b.senderIp); // re-inserted: most recent last
    this.claims.set(b.senderIp, list);
    let c = list.find((x) => x.mac === b.senderMac);
    const newReplies = b.replies - (c?.replies ?? 0);
    const newGratuitous = b.gratuitous - (c?.gratuitous ?? 0);
    if (c === undefined) {
      c = { mac: b.senderMac, firstMs, lastMs, lastReplyMs: -Infinity, requests: 0, replies: 0, gratuitous: 0, targetRuns: 0, reportedMs: -Infinity };
      list.push(c);
      if (list.length > MAX_CLAIMS_PER_IP) list.splice(0, list.length - MAX_CLAIMS_PER_IP);
    }
    c.lastMs = Math.max(c.lastMs, lastMs);
    c.firstMs = Math.min(c.firstMs, firstMs);
    if (newReplies > 0) c.lastReplyMs = lastMs;
    c.requests = b.requests;
    c.replies = b.replies;
    c.gratuitous = b.gratuitous;
    c.targetRuns = b.targetRuns;

    const windowMs = this.config.windowSec * 1000;
    // The other MACs that held this IP within the window before this one's latest message.
    const claimant = c;
    const others = list.filter((x) => x !== claimant && x.lastMs >= claimant.lastMs - windowMs && x.lastMs <= claimant.lastMs + windowMs);
    if (others.length === 0) return null;
    // The earliest holder is taken as the owner; the newest claimant as the one to judge.
    const owner = others.reduce((a, x) => (x.firstMs < a.firstMs ? x : a));
    if (owner.firstMs > claimant.firstMs) {
      // This binding is the older one (the owner answering again): judge the newest other claim instead (a reply from
      // the owner now makes it a conflict).
      return this.judge(
        b.senderIp,
        others.reduce((a, x) => (x.firstMs > a.firstMs ? x : a)),
        claimant,
        lastMs,
        newReplies,
        0,
      );
    }
    return this.judge(b.senderIp, claimant, owner, lastMs, newReplies, newGratuitous);
  }

  /** A finding about `claimant` taking `ip` from `owner`, unless one was made within the window. */
  private judge(ip: string, claimant: Claim, owner: Claim, nowMs: number, newReplies: number, newGratuitous: number): Finding | null {
    const windowMs = this.config.windowSec * 1000;
    const bothReplied = claimant.lastReplyMs > -Infinity && owner.lastReplyMs > -Infinity && Math.abs(claimant.lastReplyMs - owner.lastReplyMs) <= windowMs;
    const kind = bothReplied ? 'conflicting_replies' : claimant.gratuitous > 0 && claimant.replies > 0 ? 'gratuitous_claim' : 'mac_changed';
    // One finding per claim per window, unless it got worse (a reply or gratuitous reply arrived since).
    if (nowMs - claimant.reportedMs < windowMs && newReplies === 0 && newGratuitous === 0) return null;
    claimant.reportedMs = nowMs;
    const gateway = this.gateways.has(ip);
    let severity: Severity = kind === 'mac_changed' ? 'medium' : 'high';
    if (gateway) severity = shiftSeverity(severity, 1);
    const claimantIps = (this.ipsOfMac.get(claimant.mac) ?? []).filter((x) => x !== ip);
    const attackerIp = claimantIps.at(-1) ?? null;
    const what =
      kind === 'conflicting_replies'
        ? `both ${owner.mac} and ${claimant.mac} answer for it`
        : kind === 'gratuitous_claim'
          ? `${claimant.mac} announces it with gratuitous replies while ${owner.mac} holds it`
          : `it moved from ${owner.mac} to ${claimant.mac}`;
    return {
      category: 'arp_spoofing',
      source: 'rule',
      severity,
      score: ruleScore(claimant.replies + owner.replies + 1, 1),
      srcIp: attackerIp ?? ip,
      srcPort: null,
      dstIp: ip,
      dstPort: null,
      protocol: null,
      target: ip,
      // The claimant's own address; without one there is no host to map or block (0.0.0.0 never becomes a threat),
      // and never the claimed address: that is the victim (often the gateway).
      threatIp: attackerIp ?? '0.0.0.0',
      title: `${gateway ? 'Gateway ' : ''}${ip} claimed by a second MAC (${claimant.mac})`,
      description: `ARP for ${ip}: ${what}${attackerIp ? `; ${claimant.mac} is also ${attackerIp}` : ''}. Possible ARP spoofing (man in the middle).`,
      count: Math.max(1, claimant.replies + claimant.requests),
      firstSeenMs: claimant.firstMs,
      lastSeenMs: claimant.lastMs,
      details: {
        detector: 'arp',
        kind,
        ip,
        gateway,
        claimantMac: claimant.mac,
        claimantIps,
        claimantReplies: claimant.replies,
        claimantGratuitous: claimant.gratuitous,
        ownerMac: owner.mac,
        ownerReplies: owner.replies,
        ownerFirstSeen: new Date(owner.firstMs).toISOString(),
        ownerLastSeen: new Date(owner.lastMs).toISOString(),
        windowSec: this.config.windowSec,
        countUnit: 'messages',
      },
    };
  }

  /**
   * Records the IPs a MAC answers for; a finding when one MAC answered for two IPs or more within the window (Slips'
   * `detect_MITM_ARP_attack`: a MAC known for one IP claiming another). Proxy ARP does this by design, hence `medium`.
   */
  private answers(b: ArpBinding, lastMs: number, newReplies: number, judge: boolean): Finding | null {
    let m = this.repliesOfMac.get(b.senderMac);
    if (m === undefined) m = { answered: new Map(), reportedMs: -Infinity };
    else this.repliesOfMac.delete(b.senderMac);
    this.repliesOfMac.set(b.senderMac, m);
    if (newReplies <= 0) return null;
    m.answered.delete(b.senderIp);
    m.answered.set(b.senderIp, lastMs);
    if (m.answered.size > MAX_CLAIMS_PER_IP) m.answered.delete(m.answered.keys().next().value as string);
    const windowMs = this.config.windowSec * 1000;
    const claimed = [...m.answered].filter(([, t]) => t >= lastMs - windowMs).map(([ip]) => ip);
    if (!judge || claimed.length < 2 || lastMs - m.reportedMs < windowMs) return null;
    m.reportedMs = lastMs;
    const own = (this.ipsOfMac.get(b.senderMac) ?? []).filter((ip) => !claimed.includes(ip)).at(-1) ?? null;
    const gateway = claimed.some((ip) => this.gateways.has(ip));
    return {
      category: 'arp_spoofing',
      source: 'rule',
      severity: gateway ? 'high' : 'medium',
      score: ruleScore(claimed.length, 2),
      srcIp: own ?? (claimed[0] as string),
      srcPort: null,
      dstIp: null,
      dstPort: null,
      protocol: null,
      target: b.senderMac,
      threatIp: own ?? '0.0.0.0',
      title: `${b.senderMac} answers ARP for ${claimed.length} addresses`,
      description: `${b.senderMac} sent ARP replies for ${claimed.join(', ')} within ${this.config.windowSec} s: one MAC claiming several hosts is how ARP poisoning sits between them (or proxy ARP).`,
      count: newReplies,
      firstSeenMs: lastMs,
      lastSeenMs: lastMs,
      details: {
        detector: 'arp',
        kind: 'mac_claims_many_ips',
        claimantMac: b.senderMac,
        claimedIps: claimed,
        claimantIps: own === null ? [] : [own],
        gateway,
        windowSec: this.config.windowSec,
        countUnit: 'messages',
      },
    };
  }

  private rememberIp(mac: string, ip: string): void {
    let ips = this.ipsOfMac.get(mac);
    if (ips === undefined) ips = [];
    else this.ipsOfMac.delete(mac);
    const at = ips.indexOf(ip);
    if (at >= 0) ips.splice(at, 1);
    ips.push(ip);
    if (ips.length > MAX_CLAIMS_PER_IP) ips.shift();
    this.ipsOfMac.set(mac, ips);
  }

  /** Adds the targets `b` asked for since its last totals; a finding when the window holds enough. */
  private sweep(b: ArpBinding, lastMs: number): Finding | null {
    const key = `${b.senderIp}|${b.senderMac}`;
    const prev = this.claims.get(b.senderIp)?.find((x) => x.mac === b.senderMac);
    const added = b.targetRuns - (prev?.targetRuns ?? 0);
    let s = this.sweeps.get(key);
    if (s === undefined) {
      if (added <= 0) return null;
      s = { events: [], sum: 0, reported: 0 };
    } else this.sweeps.delete(key);
    this.sweeps.set(key, s);
    if (added > 0) {
      s.events.push(lastMs, added);
      s.sum += added;
    }
    const cutoff = lastMs - this.config.sweepWindowSec * 1000;
    while (s.events.length > 0 && (s.events[0] as number) < cutoff) {
      s.sum -= s.events[1] as number;
      s.events.splice(0, 2);
      s.reported = Math.min(s.reported, s.sum);
    }
    if (s.sum < this.config.sweepMinTargets || s.sum <= s.reported) return null;
    const fresh = s.sum - s.reported;
    s.reported = s.sum;
    const severity: Severity = s.sum >= 10 * this.config.sweepMinTargets ? 'high' : 'medium';
    return {
      category: 'port_scan',
      source: 'rule',
      severity,
      score: ruleScore(s.sum, this.config.sweepMinTargets),
      srcIp: b.senderIp,
      srcPort: null,
      dstIp: null,
      dstPort: null,
      protocol: null,
      target: '*/arp',
      threatIp: b.senderIp,
      title: `ARP sweep from ${b.senderIp}`,
      description: `${b.senderIp} (${b.senderMac}) asked for ${s.sum} addresses by ARP within ${this.config.sweepWindowSec} s: host discovery on the local network.`,
      count: fresh,
      firstSeenMs: s.events[0] as number,
      lastSeenMs: lastMs,
      details: {
        detector: 'arp',
        kind: 'arp_sweep',
        senderMac: b.senderMac,
        targets: s.sum,
        requests: b.requests,
        lastTarget: b.targetIp,
        windowSec: this.config.sweepWindowSec,
        threshold: this.config.sweepMinTargets,
        countUnit: 'targets',
      },
    };
  }
}
