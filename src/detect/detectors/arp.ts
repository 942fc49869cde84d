/**
 * ARP detector: layer 2 has no flows, so it reads the capture core's ARP bindings (one per sender IP and sender MAC,
 * with running totals: src/native/capture.ts `ArpBinding`) and raises
 * - `arp_spoofing` when one IP is claimed by a second MAC while the first still holds it: both MACs answering for it
 *   (`conflicting_replies`, high), one announcing it with gratuitous replies (`gratuitous_claim`, high), one sending
 *   repeated replies for it that nobody asked for while the other uses it (`unsolicited_replies`, high: classic
 *   poisoning), or otherwise a MAC change (`mac_changed`, medium); a claim on a gateway (`VIGIL_DETECT_ARP_GATEWAYS`)
 *   is one level higher. Which MAC is blamed comes from evidence (see `SpoofReason` below), the newer claim when
 *   there is none; the claimant's own IP (another IP its MAC asks from) is the alert's source and threat, as in
 *   Slips' `detect_MITM_ARP_attack` (a MAC seen for one IP now claiming another); arpwatch calls the same event
 *   "changed ethernet address" and, when the old MAC comes back, "flip flop".
 * - `arp_spoofing` with `kind = 'mac_claims_many_ips'` when one MAC answers for several IPs (ettercap between two
 *   hosts), high when those replies were repeated and unsolicited for two of them or more.
 * - `port_scan` with `details.kind = 'arp_sweep'` when one sender asks for many addresses within a short window
 *   (Slips `modules/arp/arp.py` `check_arp_scan`: 5 distinct targets within 30 s). The core counts, per binding, the
 *   requests for a target not among its 64 most recently asked distinct ones (`newTargets`): a sweep's targets, and a
 *   gateway's or a host's neighbours only once however often it refreshes them (`targetRuns`, the runs of consecutive
 *   requests to one target, counted every alternation: a sandbox gateway refreshing 20 neighbours reached 480 in a
 *   capture, a high sweep). The default threshold stays above Slips'.
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
  newTargets: number;
  /** The hosts its (not gratuitous) replies were sent to, as the binding's latest target when replies grew. */
  targets: string[];
  /** When a spoofing finding about this claim was last made (epoch ms), -Infinity when never. */
  reportedMs: number;
  /** Its replies and requests counted in findings so far (a finding counts the messages since the last one). */
  reportedMessages: number;
}

/** Why a MAC is the likely spoofer of an IP (the reasons, strongest first, and their weight). */
interface Evidence {
  /** Replies for the IP sent to hosts that asked for nothing, a lower bound (ARP has no ids to pair them). */
  unsolicitedReplies: number;
  reasons: SpoofReason[];
  score: number;
}

/**
 * Evidence that one of two MACs claiming an IP is the spoofer. The published detectors report the conflict but leave
 * the blame open: arpwatch reports "changed ethernet address" (a new MAC for a known IP) and "flip flop" (back to the
 * MAC before) against whichever MAC it saw first; Slips (`modules/arp/arp.py`, `detect_mitm_arp_attack`: a MAC known
 * for IP A now claiming IP B, threat critical at confidence 0.2) notes "how to find out which one is it??"; Zeek ships
 * only the `arp_request`/`arp_reply`/`bad_arp` events, and community scripts built on them raise `Unsolicited_Reply`
 * ("could be poisoning; or just gratuitous") and `Addl_MAC_Mapping`. The signals below are theirs, weighed together:
 * - `unsolicited_replies` (weight 2, required): at least {@link MIN_UNSOLICITED_REPLIES} replies, gratuitous ones
 *   aside, to hosts that never asked. Slips' `main()`: "a MITM attack happens when there is a reply without a
 *   request" (its `detect_unsolicited_arp` reports one, low); repeated, it is how arpspoof/ettercap keep a cache.
 * - `other_mac_asks_as_ip` (1): the other MAC sends requests from the IP, as a host does from its own address, while
 *   this one only ever answers for it.
 * - `asks_from_other_ip` (1): this MAC asks from another address of its own (Slips' MITM check: one MAC, two IPs).
 * - `claims_many_ips` (1): this MAC answered for another IP too within the window (the same check, by replies).
 * The blamed MAC must hold the required signal and strictly more weight than every other claim; otherwise no MAC is
 * blamed and the newer claim is judged, as before (a NIC change, a reused DHCP lease, a boot announcement).
 */
type SpoofReason = 'unsolicited_replies' | 'other_mac_asks_as_ip' | 'asks_from_other_ip' | 'claims_many_ips';

/** Targets asked for by one binding, in (time, count) pairs within the sweep window. */
interface SweepState {
  events: number[];
  sum: number;
  /** The sum already reported (a finding is made again only when it grows). */
  reported: number;
}

const MAX_CLAIMS_PER_IP = 4;
const MAX_TARGETS_PER_CLAIM = 8;
/**
 * Unsolicited replies that make poisoning evidence: arpspoof and ettercap repeat theirs every 1 to 10 s to keep the
 * victim's cache poisoned, while a host that comes up or changes its NIC announces itself once or twice (RFC 5227:
 * 2 announcements), and those are gratuitous, not counted here.
 */
const MIN_UNSOLICITED_REPLIES = 3;

/** What an {@link ArpDetector} judges: bindings as the sensor's `arp` event delivers them. */
export interface ArpObserver {
  readonly name: string;
  observeArp(bindings: readonly ArpBinding[]): Finding[];
}

export class ArpDetector implements ArpObserver {
  readonly name = 'arp';
  /** Claims per IP (Map order = least recently updated first). */
  private readonly claims = new Map<string, Claim[]>();
  /**
   * The MAC's own IPs: those it sent ordinary (not gratuitous) requests from, as a host asks from its own address.
   * Never the IPs it only answers for: those may be its victims.
   */
  private readonly ipsOfMac = new Map<string, string[]>();
  /** Request totals per sender IP and MAC: whether a host that got replies ever asked. */
  private readonly requestsFrom = new Map<string, Map<string, number>>();
  private readonly sweeps = new Map<string, SweepState>();
  /** Per MAC: the IPs it answered for (last reply, epoch ms) and when it was last reported. */
  private readonly repliesOfMac = new Map<string, { answered: Map<string, number>; reportedMs: number; reportedPoisoned: boolean }>();
  private readonly gateways: ReadonlySet<string>;

  constructor(
    private readonly config: ArpConfig,
    private readonly maxTracked: number,
  ) {
    this.gateways = new Set(config.gateways);
  }

  observeArp(bindings: readonly ArpBinding[]): Finding[] {
    const out: Finding[] = [];
    // Requests first: a reply and the request it answers may come in one batch, in either order.
    for (const b of bindings) if (b.senderIp !== '0.0.0.0') this.noteRequests(b);
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
    this.cap(this.requestsFrom);
    this.cap(this.repliesOfMac);
    return out;
  }

  private cap(map: Map<string, unknown>): void {
    while (map.size > this.maxTracked) map.delete(map.keys().next().value as string);
  }

  private noteRequests(b: ArpBinding): void {
    let m = this.requestsFrom.get(b.senderIp);
    if (m === undefined) m = new Map();
    else this.requestsFrom.delete(b.senderIp);
    this.requestsFrom.set(b.senderIp, m);
    m.delete(b.senderMac);
    m.set(b.senderMac, b.requests);
    if (m.size > MAX_CLAIMS_PER_IP) m.delete(m.keys().next().value as string);
  }

  /** Requests sent from `ip`, by any MAC. */
  private askedBy(ip: string): number {
    let n = 0;
    for (const r of this.requestsFrom.get(ip)?.values() ?? []) n += r;
    return n;
  }

  /**
   * Replies of `c` (gratuitous ones aside) beyond the requests its targets sent: a lower bound of the unsolicited; 0
   * when no target is known (replies sent only to the claimed address itself are announcements).
   */
  private unsolicited(c: Claim): number {
    if (c.targets.length === 0) return 0;
    const asked = c.targets.reduce((n, t) => n + this.askedBy(t), 0);
    return Math.max(0, c.replies - c.gratuitous - asked);
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
      c = {
        mac: b.senderMac,
        firstMs,
        lastMs,
        lastReplyMs: -Infinity,
        requests: 0,
        replies: 0,
        gratuitous: 0,
        newTargets: 0,
        targets: [],
        reportedMs: -Infinity,
        reportedMessages: 0,
      };
      list.push(c);
      if (list.length > MAX_CLAIMS_PER_IP) list.splice(0, list.length - MAX_CLAIMS_PER_IP);
    }
    c.lastMs = Math.max(c.lastMs, lastMs);
    c.firstMs = Math.min(c.firstMs, firstMs);
    if (newReplies > 0) {
      c.lastReplyMs = lastMs;
      // A reply's target is the host whose cache it writes; a gratuitous one (target = sender) is for everyone.
      if (b.targetIp !== b.senderIp && b.targetIp !== '0.0.0.0') {
        const at = c.targets.indexOf(b.targetIp);
        if (at >= 0) c.targets.splice(at, 1);
        c.targets.push(b.targetIp);
        if (c.targets.length > MAX_TARGETS_PER_CLAIM) c.targets.shift();
      }
    }
    c.requests = b.requests;
    c.replies = b.replies;
    c.gratuitous = b.gratuitous;
    c.newTargets = b.newTargets;

    const windowMs = this.config.windowSec * 1000;
    // The other MACs that held this IP within the window before this one's latest message.
    const current = c;
    const others = list.filter((x) => x !== current && x.lastMs >= current.lastMs - windowMs && x.lastMs <= current.lastMs + windowMs);
    if (others.length === 0) return null;
    const ip = b.senderIp;
    const contenders = [current, ...others];
    const evidence = new Map(contenders.map((x) => [x, this.evidence(ip, x, contenders, lastMs)]));
    const score = (x: Claim): number => (evidence.get(x) as Evidence).score;
    // The likely spoofer: the claim with the most evidence, if it has the evidence that is required (repeated
    // unsolicited replies) and strictly more than any other; its holder is the most owner-like other claim.
    const ranked = [...contenders].sort((x, y) => score(y) - score(x) || y.firstMs - x.firstMs);
    const top = ranked[0] as Claim;
    if ((evidence.get(top) as Evidence).reasons.includes('unsolicited_replies') && score(top) > score(ranked[1] as Claim)) {
      const holder = ranked.slice(1).reduce((a, x) => (score(x) < score(a) || (score(x) === score(a) && x.firstMs < a.firstMs) ? x : a));
      return this.judge(ip, top, holder, lastMs, newReplies, top === current ? newGratuitous : 0, evidence.get(top) as Evidence, 'evidence');
    }
    // No evidence either way: the earliest holder is taken as the owner, the newest claimant as the one to judge.
    const owner = others.reduce((a, x) => (x.firstMs < a.firstMs ? x : a));
    if (owner.firstMs > current.firstMs) {
      // This binding is the older one (the owner answering again): judge the newest other claim instead (a reply from
      // the owner now makes it a conflict).
      const newest = others.reduce((a, x) => (x.firstMs > a.firstMs ? x : a));
      return this.judge(ip, newest, current, lastMs, newReplies, 0, evidence.get(newest) as Evidence, 'newer_claim');
    }
    return this.judge(ip, current, owner, lastMs, newReplies, newGratuitous, evidence.get(current) as Evidence, 'newer_claim');
  }

  /**
   * The evidence that `c` spoofs `ip` against the other `contenders` (see {@link SpoofReason}). Bindings carry totals,
   * not packets, so a reply is unsolicited when its target sent fewer requests (to anyone) than it got replies: a lower
   * bound, exact for a victim that never asks, as a poisoned cache never needs to.
   */
  private evidence(ip: string, c: Claim, contenders: readonly Claim[], nowMs: number): Evidence {
    const answered = c.replies - c.gratuitous;
    const unsolicitedReplies = this.unsolicited(c);
    const reasons: SpoofReason[] = [];
    let score = 0;
    if (unsolicitedReplies >= MIN_UNSOLICITED_REPLIES) {
      reasons.push('unsolicited_replies');
      score += 2;
    }
    const asks = (x: Claim): boolean => x.requests > x.gratuitous;
    if (!asks(c) && contenders.some((x) => x !== c && asks(x))) {
      reasons.push('other_mac_asks_as_ip');
      score += 1;
    }
    if ((this.ipsOfMac.get(c.mac) ?? []).some((x) => x !== ip)) {
      reasons.push('asks_from_other_ip');
      score += 1;
    }
    const windowMs = this.config.windowSec * 1000;
    const answeredIps = [...(this.repliesOfMac.get(c.mac)?.answered ?? [])].filter(([x, t]) => x !== ip && t >= nowMs - windowMs);
    if (answered > 0 && answeredIps.length > 0) {
      reasons.push('claims_many_ips');
      score += 1;
    }
    return { unsolicitedReplies, reasons, score };
  }

  /** A finding about `claimant` taking `ip` from `owner`, unless one was made within the window. */
  private judge(
    ip: string,
    claimant: Claim,
    owner: Claim,
    nowMs: number,
    newReplies: number,
    newGratuitous: number,
    evidence: Evidence,
    attribution: 'evidence' | 'newer_claim',
  ): Finding | null {
    const windowMs = this.config.windowSec * 1000;
    const bothReplied = claimant.lastReplyMs > -Infinity && owner.lastReplyMs > -Infinity && Math.abs(claimant.lastReplyMs - owner.lastReplyMs) <= windowMs;
    const poisoning = attribution === 'evidence';
    const kind = bothReplied
      ? 'conflicting_replies'
      : claimant.gratuitous > 0 && claimant.replies > 0
        ? 'gratuitous_claim'
        : poisoning
          ? 'unsolicited_replies'
          : 'mac_changed';
    // One finding per claim per window, unless it got worse (a reply or gratuitous reply arrived since).
    if (nowMs - claimant.reportedMs < windowMs && newReplies === 0 && newGratuitous === 0) return null;
    claimant.reportedMs = nowMs;
    // The alert adds up its findings' counts: each counts the claimant's messages since the previous one.
    const messages = claimant.replies + claimant.requests;
    const fresh = Math.max(1, messages - claimant.reportedMessages);
    claimant.reportedMessages = Math.max(claimant.reportedMessages, messages);
    const gateway = this.gateways.has(ip);
    let severity: Severity = kind === 'mac_changed' ? 'medium' : 'high';
    if (gateway) severity = shiftSeverity(severity, 1);
    const claimantIps = (this.ipsOfMac.get(claimant.mac) ?? []).filter((x) => x !== ip);
    const attackerIp = claimantIps.at(-1) ?? null;
    const targets = claimant.targets.filter((x) => x !== ip);
    const what =
      kind === 'conflicting_replies'
        ? `both ${owner.mac} and ${claimant.mac} answer for it`
        : kind === 'gratuitous_claim'
          ? `${claimant.mac} announces it with gratuitous replies while ${owner.mac} holds it`
          : kind === 'unsolicited_replies'
            ? `${claimant.mac} keeps answering for it unasked while ${owner.mac} uses it`
            : `it moved from ${owner.mac} to ${claimant.mac}`;
    const why = poisoning
      ? `; ${claimant.mac} is the likely spoofer (${evidence.reasons.join(', ')}: ${evidence.unsolicitedReplies} replies nobody asked for${
          targets.length > 0 ? `, sent to ${targets.join(', ')}` : ''
        })`
      : '';
    const interval = claimant.replies > 1 ? Math.round((claimant.lastMs - claimant.firstMs) / (claimant.replies - 1) / 10) / 100 : null;
    return {
      category: 'arp_spoofing',
      source: 'rule',
      severity,
      score: ruleScore(claimant.replies + owner.replies + 1, 1),
      srcIp: attackerIp ?? ip,
      srcPort: null,
      dstIp: attackerIp === null && poisoning && targets.length > 0 ? (targets.at(-1) as string) : ip,
      dstPort: null,
      protocol: null,
      target: ip,
      // The claimant's own address; without one there is no host to map or block (0.0.0.0 never becomes a threat),
      // and never the claimed address: that is the victim (often the gateway).
      threatIp: attackerIp ?? '0.0.0.0',
      title: poisoning
        ? `ARP spoofing of ${gateway ? 'gateway ' : ''}${ip} by ${claimant.mac}`
        : `${gateway ? 'Gateway ' : ''}${ip} claimed by a second MAC (${claimant.mac})`,
      description: `ARP for ${ip}: ${what}${attackerIp ? `; ${claimant.mac} is also ${attackerIp}` : ''}${why}. Possible ARP spoofing (man in the middle).`,
      count: fresh,
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
        ownerRequests: owner.requests,
        ownerFirstSeen: new Date(owner.firstMs).toISOString(),
        ownerLastSeen: new Date(owner.lastMs).toISOString(),
        attribution,
        spooferMac: poisoning ? claimant.mac : null,
        evidence: evidence.reasons,
        unsolicitedReplies: evidence.unsolicitedReplies,
        targets,
        replyIntervalSec: interval,
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
    if (m === undefined) m = { answered: new Map(), reportedMs: -Infinity, reportedPoisoned: false };
    else this.repliesOfMac.delete(b.senderMac);
    this.repliesOfMac.set(b.senderMac, m);
    if (newReplies <= 0) return null;
    m.answered.delete(b.senderIp);
    m.answered.set(b.senderIp, lastMs);
    if (m.answered.size > MAX_CLAIMS_PER_IP) m.answered.delete(m.answered.keys().next().value as string);
    const windowMs = this.config.windowSec * 1000;
    const claimed = [...m.answered].filter(([, t]) => t >= lastMs - windowMs).map(([ip]) => ip);
    if (!judge || claimed.length < 2) return null;
    // Proxy ARP answers the hosts that ask; a poisoner keeps telling hosts that never asked (each victim is told the
    // other's address is at its MAC): repeated unsolicited replies for two addresses or more make it high.
    const claims = claimed.map((ip) => this.claims.get(ip)?.find((x) => x.mac === b.senderMac)).filter((x): x is Claim => x !== undefined);
    const unsolicited = claims.map((c) => this.unsolicited(c));
    const poisoned = unsolicited.filter((n) => n >= MIN_UNSOLICITED_REPLIES).length >= 2;
    // Once per window, unless the evidence grew into poisoning since (bindings come every second: the first replies of
    // a poisoner are not yet repeated; the alert then rises to high).
    if (lastMs - m.reportedMs < windowMs && (m.reportedPoisoned || !poisoned)) return null;
    m.reportedMs = lastMs;
    m.reportedPoisoned = poisoned;
    const own = (this.ipsOfMac.get(b.senderMac) ?? []).filter((ip) => !claimed.includes(ip)).at(-1) ?? null;
    const gateway = claimed.some((ip) => this.gateways.has(ip));
    const targets = [...new Set(claims.flatMap((c) => c.targets))];
    return {
      category: 'arp_spoofing',
      source: 'rule',
      severity: shiftSeverity(poisoned ? 'high' : 'medium', gateway ? 1 : 0),
      score: ruleScore(claimed.length, 2),
      srcIp: own ?? (claimed[0] as string),
      srcPort: null,
      dstIp: null,
      dstPort: null,
      protocol: null,
      target: b.senderMac,
      threatIp: own ?? '0.0.0.0',
      title: `${b.senderMac} answers ARP for ${claimed.length} addresses`,
      description: `${b.senderMac} sent ARP replies for ${claimed.join(', ')} within ${this.config.windowSec} s${
        poisoned ? `, ${unsolicited.reduce((a, n) => a + n, 0)} of them unasked, to ${targets.join(', ')}` : ''
      }: one MAC claiming several hosts is how ARP poisoning sits between them (or proxy ARP).`,
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
        unsolicitedReplies: unsolicited.reduce((a, n) => a + n, 0),
        targets,
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
    const added = b.newTargets - (prev?.newTargets ?? 0);
    let s = this.sweeps.get(key);
    if (s === undefined) {
      if (added <= 0) return null;
      s = { events: [], sum: 0, reported: 0 };
    } else this.sweeps.delete(key);
    this.sweeps.set(key, s);
    // Each new target at its capture time when the core gave it (a replay hands bindings over once a wall-clock
    // second, which may hold hours of capture time), any beyond the times given at the earliest of them; the window
    // slides over them in order, and the busiest window is judged.
    const windowMs = this.config.sweepWindowSec * 1000;
    const state = s;
    let peak = -1;
    let peakFirst = lastMs;
    let peakLast = lastMs;
    const slide = (t: number): void => {
      while (state.events.length > 0 && (state.events[0] as number) < t - windowMs) {
        state.sum -= state.events[1] as number;
        state.events.splice(0, 2);
        state.reported = Math.min(state.reported, state.sum);
      }
      if (state.sum > peak) {
        peak = state.sum;
        peakFirst = (state.events[0] as number | undefined) ?? t;
        peakLast = t;
      }
    };
    const add = (t: number, n: number): void => {
      state.events.push(t, n);
      state.sum += n;
      slide(t);
    };
    if (added > 0) {
      const times = b.newTargetTimes.length > added ? b.newTargetTimes.slice(-added) : b.newTargetTimes;
      const untimed = added - times.length;
      if (untimed > 0) add(times[0] ?? lastMs, untimed);
      for (const t of times) add(t, 1);
    } else slide(lastMs);
    if (peak < this.config.sweepMinTargets || peak <= s.reported) return null;
    const fresh = peak - s.reported;
    s.reported = peak;
    const severity: Severity = peak >= 10 * this.config.sweepMinTargets ? 'high' : 'medium';
    return {
      category: 'port_scan',
      source: 'rule',
      severity,
      score: ruleScore(peak, this.config.sweepMinTargets),
      srcIp: b.senderIp,
      srcPort: null,
      dstIp: null,
      dstPort: null,
      protocol: null,
      target: '*/arp',
      threatIp: b.senderIp,
      title: `ARP sweep from ${b.senderIp}`,
      description: `${b.senderIp} (${b.senderMac}) asked for ${peak} addresses by ARP within ${this.config.sweepWindowSec} s: host discovery on the local network.`,
      count: fresh,
      firstSeenMs: peakFirst,
      lastSeenMs: peakLast,
      details: {
        detector: 'arp',
        kind: 'arp_sweep',
        senderMac: b.senderMac,
        targets: peak,
        requests: b.requests,
        lastTarget: b.targetIp,
        windowSec: this.config.sweepWindowSec,
        threshold: this.config.sweepMinTargets,
        countUnit: 'targets',
      },
    };
  }
}
