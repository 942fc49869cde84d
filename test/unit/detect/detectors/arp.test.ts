import { expect } from 'chai';
import { loadDetectionConfig, type ArpConfig } from '../../../../src/config/detection.js';
import { ArpDetector } from '../../../../src/detect/detectors/arp.js';
import type { ArpBinding } from '../../../../src/native/capture.js';

const T0 = Date.parse('2026-01-01T10:00:00.000Z');
const GATEWAY_MAC = '00:50:56:c0:00:01';
const ATTACKER_MAC = '00:0c:29:03:df:ad';

/**
 * A binding's totals as the sensor's `arp` event gives them; times in seconds after T0. `newTargets` defaults to
 * `targetRuns` (a sender asking for each target once: a sweep).
 */
function binding(over: Partial<Omit<ArpBinding, 'firstSeen' | 'lastSeen'>> & { first?: number; last?: number } = {}): ArpBinding {
  const { first = 0, last = first, ...rest } = over;
  return {
    newTargets: over.targetRuns ?? 0,
    newTargetTimes: [],
    senderMac: GATEWAY_MAC,
    senderIp: '192.168.1.1',
    targetIp: '192.168.1.20',
    requests: 0,
    replies: 1,
    targetRuns: 0,
    gratuitous: 0,
    firstSeen: new Date(T0 + first * 1000).toISOString(),
    lastSeen: new Date(T0 + last * 1000).toISOString(),
    ...rest,
  };
}

const config = (over: Partial<ArpConfig> = {}): ArpConfig => ({ ...loadDetectionConfig({}).arp, ...over });

describe('detect/detectors/arp: ArpDetector#observeArp()', () => {
  it('raises nothing for one MAC per IP, however often it answers', () => {
    const d = new ArpDetector(config(), 100);
    expect(d.observeArp([binding({ replies: 1 })])).to.deep.equal([]);
    expect(
      d.observeArp([binding({ replies: 40, last: 300 }), binding({ senderIp: '192.168.1.20', senderMac: '00:0c:29:61:f5:5f', requests: 40, replies: 0 })]),
    ).to.deep.equal([]);
  });

  it('calls both MACs answering for one IP conflicting replies (high), names the claimant and its own IP', () => {
    const d = new ArpDetector(config(), 100);
    d.observeArp([binding({ senderIp: '192.168.1.66', senderMac: ATTACKER_MAC, requests: 1, replies: 0, targetIp: '192.168.1.1' })]);
    d.observeArp([binding({ replies: 1, first: 1 })]);
    const [f, ...rest] = d.observeArp([binding({ senderMac: ATTACKER_MAC, replies: 5, first: 5, last: 13 })]);
    expect(rest).to.deep.equal([]);
    expect(f).to.deep.include({
      category: 'arp_spoofing',
      severity: 'high',
      srcIp: '192.168.1.66',
      dstIp: '192.168.1.1',
      target: '192.168.1.1',
      threatIp: '192.168.1.66',
    });
    expect(f!.details).to.deep.include({
      kind: 'conflicting_replies',
      claimantMac: ATTACKER_MAC,
      claimantIps: ['192.168.1.66'],
      ownerMac: GATEWAY_MAC,
      claimantReplies: 5,
      ownerReplies: 1,
      gateway: false,
    });
    expect(f!.firstSeenMs).to.equal(T0 + 5000);
    expect(f!.lastSeenMs).to.equal(T0 + 13000);
  });

  it('is one level higher for a configured gateway, and never makes the claimed address the threat', () => {
    const d = new ArpDetector(config({ gateways: ['192.168.1.1'] }), 100);
    d.observeArp([binding({ replies: 1 })]);
    const [f] = d.observeArp([binding({ senderMac: ATTACKER_MAC, replies: 3, first: 2, last: 6 })]);
    expect(f).to.deep.include({ severity: 'critical', srcIp: '192.168.1.1', threatIp: '0.0.0.0' });
    expect(f!.details).to.include({ gateway: true, kind: 'conflicting_replies' });
  });

  it('calls a second MAC that only asks (no replies) a MAC change (medium)', () => {
    const d = new ArpDetector(config(), 100);
    d.observeArp([binding({ senderIp: '192.168.1.30', senderMac: '02:00:00:00:00:01', requests: 2, replies: 0 })]);
    const [f] = d.observeArp([binding({ senderIp: '192.168.1.30', senderMac: '02:00:00:00:00:02', requests: 1, replies: 0, first: 60 })]);
    expect(f).to.deep.include({ severity: 'medium' });
    expect(f!.details).to.include({ kind: 'mac_changed', ownerMac: '02:00:00:00:00:01', claimantMac: '02:00:00:00:00:02' });
  });

  it('calls gratuitous replies from a newcomer a gratuitous claim when the owner only asked', () => {
    const d = new ArpDetector(config(), 100);
    d.observeArp([binding({ requests: 3, replies: 0 })]);
    const [f] = d.observeArp([binding({ senderMac: ATTACKER_MAC, replies: 2, gratuitous: 2, targetIp: '192.168.1.1', first: 10, last: 12 })]);
    expect(f).to.deep.include({ severity: 'high' });
    expect(f!.details).to.include({ kind: 'gratuitous_claim', claimantGratuitous: 2 });
  });

  it('judges the newcomer when the owner answers again, and reports a claim once per window unless it grows', () => {
    const d = new ArpDetector(config(), 100);
    d.observeArp([binding({ replies: 1 })]);
    expect(d.observeArp([binding({ senderMac: ATTACKER_MAC, requests: 1, replies: 0, first: 5 })])[0]!.details).to.include({ kind: 'mac_changed' });
    // The same totals again: nothing new.
    expect(d.observeArp([binding({ senderMac: ATTACKER_MAC, requests: 1, replies: 0, first: 5, last: 6 })])).to.deep.equal([]);
    // The owner answers again: still the newcomer who is judged.
    const [again] = d.observeArp([binding({ replies: 2, last: 8 })]);
    expect(again!.details).to.include({ claimantMac: ATTACKER_MAC, ownerMac: GATEWAY_MAC });
  });

  it('does not connect claims further apart than the window (a laptop that moved to another network)', () => {
    const d = new ArpDetector(config({ windowSec: 600 }), 100);
    d.observeArp([binding({ replies: 4, last: 100 })]);
    expect(d.observeArp([binding({ senderMac: '02:aa:00:00:00:01', replies: 1, first: 701, last: 701 })])).to.deep.equal([]);
    // One second less apart and it is a conflict.
    const e = new ArpDetector(config({ windowSec: 600 }), 100);
    e.observeArp([binding({ replies: 4, last: 100 })]);
    expect(e.observeArp([binding({ senderMac: '02:aa:00:00:00:01', replies: 1, first: 700, last: 700 })])).to.have.length(1);
  });

  it('calls one MAC answering for two IPs a claim on both (ettercap between two hosts), once per window unless it grows into poisoning', () => {
    const d = new ArpDetector(config(), 100);
    const poison = (ip: string, replies: number, at: number): ArpBinding => binding({ senderIp: ip, senderMac: ATTACKER_MAC, replies, first: 0, last: at });
    expect(d.observeArp([poison('10.0.0.153', 1, 0)])).to.deep.equal([]);
    const [f, ...rest] = d.observeArp([poison('10.0.0.157', 1, 0)]);
    expect(rest).to.deep.equal([]);
    expect(f).to.deep.include({ category: 'arp_spoofing', severity: 'medium', target: ATTACKER_MAC, srcIp: '10.0.0.153', threatIp: '0.0.0.0' });
    expect(f!.details).to.deep.include({ kind: 'mac_claims_many_ips', claimedIps: ['10.0.0.153', '10.0.0.157'], claimantIps: [] });
    // Repeated unasked replies for both since: reported again, high (the aggregator raises the alert); then no more.
    const rose = d.observeArp([poison('10.0.0.153', 5, 4), poison('10.0.0.157', 5, 4)]);
    expect(rose.map((x) => [x.severity, x.details['kind']])).to.deep.equal([['high', 'mac_claims_many_ips']]);
    expect(d.observeArp([poison('10.0.0.153', 9, 8), poison('10.0.0.157', 9, 8)])).to.deep.equal([]);
  });

  it('names the claimant by the address it asks from, and is high when a gateway is among the claimed', () => {
    const d = new ArpDetector(config({ gateways: ['192.168.1.1'] }), 100);
    d.observeArp([binding({ senderIp: '192.168.1.66', senderMac: ATTACKER_MAC, requests: 2, replies: 0 })]);
    d.observeArp([binding({ senderIp: '192.168.1.20', senderMac: ATTACKER_MAC, replies: 3 })]);
    const [f] = d.observeArp([binding({ senderIp: '192.168.1.1', senderMac: ATTACKER_MAC, replies: 3, first: 1 })]);
    expect(f).to.deep.include({ severity: 'high', srcIp: '192.168.1.66', threatIp: '192.168.1.66' });
    expect(f!.details).to.deep.include({ gateway: true, claimantIps: ['192.168.1.66'] });
  });

  it('never names an address the claimant only answers for as its own (poisoning the gateway, then a host)', () => {
    const d = new ArpDetector(config(), 100);
    d.observeArp([binding({ replies: 2 }), binding({ senderIp: '192.168.1.20', senderMac: '02:00:00:00:00:20', requests: 1, replies: 1 })]);
    d.observeArp([binding({ senderMac: ATTACKER_MAC, replies: 4, first: 2, last: 8 })]);
    const out = d.observeArp([binding({ senderIp: '192.168.1.20', senderMac: ATTACKER_MAC, replies: 4, first: 3, last: 9 })]);
    const host = out.find((f) => f.target === '192.168.1.20');
    expect(host).to.deep.include({ srcIp: '192.168.1.20', threatIp: '0.0.0.0' });
    expect(host!.details).to.deep.include({ claimantIps: [] });
  });

  describe('attribution (which MAC is the likely spoofer)', () => {
    // The pattern of SniperDZ-Pro/Cyber-Forensics-Workshop arp_spoofing.pcap (tshark): b4:b6:86:fb:db:07 sends 18
    // replies "192.168.1.1 is at b4:b6:86:fb:db:07" to 192.168.1.175 every 2 s from 1.25 s and never asks; the real
    // gateway 50:a7:2b:73:a9:c6 only asks, as 192.168.1.1, first at 8.20 s (16 requests); 192.168.1.175 never asks,
    // it only answers the gateway 3 times.
    const SPOOFER = 'b4:b6:86:fb:db:07';
    const REAL_GW = '50:a7:2b:73:a9:c6';
    const VICTIM_MAC = '0c:54:15:40:d8:f5';
    const spoofer = (replies: number, last: number): ArpBinding => binding({ senderMac: SPOOFER, targetIp: '192.168.1.175', replies, first: 1.25, last });
    const gateway = (requests: number, last: number): ArpBinding =>
      binding({ senderMac: REAL_GW, targetIp: '192.168.1.55', requests, replies: 0, targetRuns: 2, first: 8.2, last });
    const victim = binding({ senderIp: '192.168.1.175', senderMac: VICTIM_MAC, targetIp: '192.168.1.1', replies: 3, first: 10.62, last: 95.7 });

    it('blames the MAC sending unasked replies, not the one seen first, and names the host it poisons (one batch, as a replay)', () => {
      const d = new ArpDetector(config(), 100);
      const out = d.observeArp([spoofer(18, 35.28), gateway(16, 114.29), victim]);
      expect(out).to.have.length(1);
      const f = out[0]!;
      expect(f).to.deep.include({
        category: 'arp_spoofing',
        severity: 'high',
        srcIp: '192.168.1.1',
        dstIp: '192.168.1.175',
        target: '192.168.1.1',
        threatIp: '0.0.0.0',
        count: 18,
        title: `ARP spoofing of 192.168.1.1 by ${SPOOFER}`,
      });
      expect(f.details).to.deep.include({
        kind: 'unsolicited_replies',
        claimantMac: SPOOFER,
        spooferMac: SPOOFER,
        ownerMac: REAL_GW,
        ownerRequests: 16,
        ownerReplies: 0,
        attribution: 'evidence',
        evidence: ['unsolicited_replies', 'other_mac_asks_as_ip'],
        unsolicitedReplies: 18,
        targets: ['192.168.1.175'],
        replyIntervalSec: 2,
      });
      expect(f.description).to.contain(`${SPOOFER} is the likely spoofer`).and.contain('sent to 192.168.1.175');
      expect(f.firstSeenMs).to.equal(T0 + 1250);
    });

    it('is critical when the claimed address is the configured gateway', () => {
      const d = new ArpDetector(config({ gateways: ['192.168.1.1'] }), 100);
      const [f] = d.observeArp([spoofer(18, 35.28), gateway(16, 114.29), victim]);
      expect(f).to.deep.include({ severity: 'critical', title: `ARP spoofing of gateway 192.168.1.1 by ${SPOOFER}` });
      expect(f!.details).to.include({ gateway: true, spooferMac: SPOOFER });
    });

    it('blames the same MAC when the bindings arrive second by second (live)', () => {
      const d = new ArpDetector(config(), 100);
      const out = [];
      for (let i = 1; i <= 4; i++) out.push(...d.observeArp([spoofer(i, 1.25 + 2 * (i - 1))]));
      out.push(...d.observeArp([gateway(1, 8.2)]));
      out.push(...d.observeArp([spoofer(5, 9.26), gateway(2, 9.23)]));
      out.push(
        ...d.observeArp([gateway(3, 10.62), binding({ senderIp: '192.168.1.175', senderMac: VICTIM_MAC, targetIp: '192.168.1.1', replies: 1, first: 10.62 })]),
      );
      out.push(...d.observeArp([spoofer(18, 35.28)]));
      expect(out.length).to.be.greaterThan(0);
      expect(out.map((f) => [f.details['claimantMac'], f.details['spooferMac'], f.dstIp])).to.deep.equal(out.map(() => [SPOOFER, SPOOFER, '192.168.1.175']));
      expect(out[0]!.details).to.include({ kind: 'unsolicited_replies', unsolicitedReplies: 4 });
      // The alert adds its findings' counts up: together they count the spoofer's 18 replies once (each finding the
      // replies since the previous one), not its running total at every finding.
      expect(out.reduce((n, f) => n + f.count, 0)).to.equal(18);
    });

    it('still blames the newcomer when the owner seen first answers hosts that asked (owner first)', () => {
      const d = new ArpDetector(config(), 100);
      d.observeArp([
        binding({ replies: 4, targetIp: '192.168.1.20', last: 30 }),
        binding({ senderIp: '192.168.1.20', senderMac: '02:00:00:00:00:20', requests: 4, replies: 0, targetIp: '192.168.1.1', targetRuns: 1, last: 30 }),
      ]);
      const [f] = d.observeArp([binding({ senderMac: ATTACKER_MAC, targetIp: '192.168.1.30', replies: 10, first: 40, last: 58 })]);
      expect(f).to.deep.include({ severity: 'high', srcIp: '192.168.1.1', dstIp: '192.168.1.30' });
      expect(f!.details).to.deep.include({
        kind: 'conflicting_replies',
        claimantMac: ATTACKER_MAC,
        ownerMac: GATEWAY_MAC,
        spooferMac: ATTACKER_MAC,
        attribution: 'evidence',
        unsolicitedReplies: 10,
        targets: ['192.168.1.30'],
      });
    });

    it('blames the MAC seen second when it is the one sending unasked replies, even though the first also replied', () => {
      const d = new ArpDetector(config(), 100);
      // The real gateway answers a host that asked twice; the spoofer, seen before, tells 192.168.1.40 every 2 s.
      const [f] = d.observeArp([
        binding({ senderMac: ATTACKER_MAC, targetIp: '192.168.1.40', replies: 12, first: 0, last: 22 }),
        binding({ replies: 2, targetIp: '192.168.1.20', first: 5, last: 20 }),
        binding({
          senderIp: '192.168.1.20',
          senderMac: '02:00:00:00:00:20',
          requests: 2,
          replies: 0,
          targetIp: '192.168.1.1',
          targetRuns: 1,
          first: 5,
          last: 20,
        }),
      ]);
      expect(f!.details).to.deep.include({ kind: 'conflicting_replies', claimantMac: ATTACKER_MAC, ownerMac: GATEWAY_MAC, spooferMac: ATTACKER_MAC });
      expect(f).to.deep.include({ dstIp: '192.168.1.40' });
    });

    it('blames nobody for a NIC change: the new MAC asks and announces itself at boot (medium, no spoofer)', () => {
      const d = new ArpDetector(config(), 100);
      d.observeArp([binding({ senderIp: '192.168.1.30', senderMac: '02:00:00:00:00:01', targetIp: '192.168.1.1', requests: 5, replies: 2, last: 50 })]);
      const [f] = d.observeArp([
        binding({
          senderIp: '192.168.1.30',
          senderMac: '02:00:00:00:00:02',
          targetIp: '192.168.1.1',
          requests: 3,
          replies: 0,
          gratuitous: 2,
          first: 90,
          last: 95,
        }),
      ]);
      expect(f).to.deep.include({ severity: 'medium', dstIp: '192.168.1.30' });
      expect(f!.details).to.deep.include({ kind: 'mac_changed', attribution: 'newer_claim', spooferMac: null, evidence: [], unsolicitedReplies: 0 });
    });

    it('counts no gratuitous announcement as an unsolicited reply (a host reusing a DHCP lease)', () => {
      const d = new ArpDetector(config(), 100);
      d.observeArp([binding({ senderIp: '192.168.1.30', senderMac: '02:00:00:00:00:01', targetIp: '192.168.1.1', requests: 4, replies: 0 })]);
      const [f] = d.observeArp([
        binding({
          senderIp: '192.168.1.30',
          senderMac: '02:00:00:00:00:02',
          targetIp: '192.168.1.30',
          requests: 0,
          replies: 3,
          gratuitous: 3,
          first: 60,
          last: 62,
        }),
      ]);
      expect(f!.details).to.deep.include({ kind: 'gratuitous_claim', spooferMac: null, unsolicitedReplies: 0, targets: [] });
    });

    it('raises nothing for a boot announcement with no other MAC for the address', () => {
      const d = new ArpDetector(config(), 100);
      expect(
        d.observeArp([binding({ senderIp: '192.168.1.30', senderMac: '02:00:00:00:00:01', targetIp: '192.168.1.30', requests: 0, replies: 2, gratuitous: 2 })]),
      ).to.deep.equal([]);
    });
  });

  describe('one MAC for several IPs', () => {
    it('is high for repeated unasked replies telling each of two hosts the other is at its MAC (ettercap, sgr na-arpSpoofing.pcap)', () => {
      const d = new ArpDetector(config(), 100);
      const [f, ...rest] = d.observeArp([
        binding({ senderIp: '10.0.0.153', senderMac: '00:e0:4d:3c:25:7b', targetIp: '10.0.0.157', replies: 18, last: 134 }),
        binding({ senderIp: '10.0.0.157', senderMac: '00:e0:4d:3c:25:7b', targetIp: '10.0.0.153', replies: 18, last: 134 }),
      ]);
      expect(rest).to.deep.equal([]);
      expect(f).to.deep.include({ severity: 'high', srcIp: '10.0.0.153', target: '00:e0:4d:3c:25:7b', threatIp: '0.0.0.0' });
      expect(f!.details).to.deep.include({ kind: 'mac_claims_many_ips', unsolicitedReplies: 36, targets: ['10.0.0.157', '10.0.0.153'] });
    });

    it('stays medium for proxy ARP: a router answering a host that asked for each address', () => {
      const d = new ArpDetector(config(), 100);
      const [f] = d.observeArp([
        binding({ senderIp: '192.168.1.20', senderMac: '02:00:00:00:00:20', targetIp: '10.1.0.31', requests: 6, replies: 0, targetRuns: 6, last: 30 }),
        binding({ senderIp: '10.1.0.30', senderMac: '02:00:00:00:00:fe', targetIp: '192.168.1.20', replies: 3, last: 30 }),
        binding({ senderIp: '10.1.0.31', senderMac: '02:00:00:00:00:fe', targetIp: '192.168.1.20', replies: 3, last: 30 }),
      ]);
      expect(f).to.deep.include({ severity: 'medium' });
      expect(f!.details).to.deep.include({ kind: 'mac_claims_many_ips', unsolicitedReplies: 0, targets: ['192.168.1.20'] });
    });
  });

  it('ignores RFC 5227 probes from 0.0.0.0', () => {
    const d = new ArpDetector(config({ sweepMinTargets: 2 }), 100);
    d.observeArp([binding({ senderIp: '0.0.0.0', senderMac: '02:00:00:00:00:01', requests: 3, replies: 0, targetRuns: 3 })]);
    expect(d.observeArp([binding({ senderIp: '0.0.0.0', senderMac: '02:00:00:00:00:02', requests: 9, replies: 0, targetRuns: 9 })])).to.deep.equal([]);
  });

  it('calls one sender asking for sweepMinTargets addresses within the window an ARP sweep (port_scan, kind arp_sweep)', () => {
    const d = new ArpDetector(config({ sweepMinTargets: 16, sweepWindowSec: 30 }), 100);
    const asks = (runs: number, at: number): ArpBinding =>
      binding({
        senderIp: '192.168.1.66',
        senderMac: ATTACKER_MAC,
        requests: runs,
        replies: 0,
        targetRuns: runs,
        targetIp: `192.168.1.${runs}`,
        first: 0,
        last: at,
      });
    expect(d.observeArp([asks(15, 10)])).to.deep.equal([]);
    const [f] = d.observeArp([asks(16, 11)]);
    expect(f).to.deep.include({
      category: 'port_scan',
      severity: 'medium',
      srcIp: '192.168.1.66',
      dstIp: null,
      target: '*/arp',
      threatIp: '192.168.1.66',
      count: 16,
    });
    expect(f!.details).to.deep.include({ kind: 'arp_sweep', targets: 16, senderMac: ATTACKER_MAC, lastTarget: '192.168.1.16', threshold: 16 });
    // More targets: reported again, counting only the new ones.
    const [g] = d.observeArp([asks(20, 12)]);
    expect(g).to.deep.include({ count: 4 });
    expect(g!.details).to.include({ targets: 20 });
  });

  it('forgets sweep targets older than the window: a host asking slowly is no sweep', () => {
    const d = new ArpDetector(config({ sweepMinTargets: 16, sweepWindowSec: 30 }), 100);
    const out = [];
    for (let i = 1; i <= 40; i++)
      out.push(...d.observeArp([binding({ senderIp: '192.168.1.20', senderMac: '02:00:00:00:00:20', requests: i, replies: 0, targetRuns: i, last: i * 5 })]));
    expect(out).to.deep.equal([]);
  });

  it('a gateway refreshing the same neighbours in turn is no sweep: new targets count, not runs', () => {
    // The sandbox gateway of corelight's AsyncRAT captures: hundreds of runs over ~20 neighbours, each neighbour new once.
    const d = new ArpDetector(config({ sweepMinTargets: 16, sweepWindowSec: 30 }), 100);
    const gw = { senderIp: '192.168.100.2', senderMac: '52:54:00:36:3e:ff', replies: 0 };
    expect(d.observeArp([binding({ ...gw, requests: 12, targetRuns: 12, newTargets: 12, last: 20 })])).to.deep.equal([]);
    expect(d.observeArp([binding({ ...gw, requests: 508, targetRuns: 480, newTargets: 14, last: 40 })])).to.deep.equal([]);
    // Runs counted as targets, the second poll alone would have been a high sweep (468 >= 10 x 16).
  });

  it('places new targets at the times the core gives (one drain of a fast replay spanning minutes)', () => {
    const d = new ArpDetector(config({ sweepMinTargets: 16, sweepWindowSec: 30 }), 100);
    const at = (sec: number): number => T0 + sec * 1000;
    // A gateway asking for 20 neighbours one every 3 s, handed over at once: never 16 within 30 s.
    const gw = { senderIp: '192.168.56.1', senderMac: '52:54:00:12:35:01', replies: 0 };
    const slow = Array.from({ length: 20 }, (_, k) => at(3 * k));
    expect(d.observeArp([binding({ ...gw, requests: 200, targetRuns: 200, newTargets: 20, newTargetTimes: slow, last: 600 })])).to.deep.equal([]);
    // A sweep of 40 addresses in 2 s at minute 5, then 10 slow ones, in the same drain: the busiest window is judged.
    const sweeper = { senderIp: '192.168.56.66', senderMac: ATTACKER_MAC, replies: 0 };
    const times = [...Array.from({ length: 40 }, (_, k) => at(300 + k / 20)), ...Array.from({ length: 10 }, (_, k) => at(400 + 20 * k))];
    const [f, ...rest] = d.observeArp([binding({ ...sweeper, requests: 50, targetRuns: 50, newTargets: 50, newTargetTimes: times, last: 600 })]);
    expect(rest).to.deep.equal([]);
    expect(f!.details).to.deep.include({ kind: 'arp_sweep', targets: 40 });
    expect(f).to.deep.include({ severity: 'medium', firstSeenMs: at(300), lastSeenMs: at(300 + 39 / 20) });
  });

  it('a host asking for the same address again and again is no sweep (one run)', () => {
    const d = new ArpDetector(config({ sweepMinTargets: 2 }), 100);
    expect(d.observeArp([binding({ senderIp: '192.168.1.20', senderMac: '02:00:00:00:00:20', requests: 500, replies: 0, targetRuns: 1 })])).to.deep.equal([]);
  });

  it('keeps at most maxTracked IPs (the least recently seen forgotten)', () => {
    const d = new ArpDetector(config(), 10);
    d.observeArp([binding({ replies: 1 })]);
    for (let i = 0; i < 20; i++) d.observeArp([binding({ senderIp: `10.0.0.${i}`, senderMac: '02:00:00:00:00:99', requests: 1, replies: 0 })]);
    // 192.168.1.1 was forgotten: a second MAC for it is a first claim now.
    expect(d.observeArp([binding({ senderMac: ATTACKER_MAC, replies: 1, first: 2 })])).to.deep.equal([]);
  });
});
