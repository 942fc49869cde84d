import { expect } from 'chai';
import { loadDetectionConfig } from '../../../src/config/detection.js';
import { BeaconDetector } from '../../../src/detect/detectors/beacon.js';
import { BlockedIpDetector } from '../../../src/detect/detectors/blocked-ip.js';
import { BruteForceDetector, coefficientOfVariation } from '../../../src/detect/detectors/brute-force.js';
import { PacketFloodDetector, ReflectionDetector, SynFloodDetector } from '../../../src/detect/detectors/flood.js';
import { PortScanDetector } from '../../../src/detect/detectors/port-scan.js';
import type { FlowRecord } from '../../../src/native/flow-record.js';
import { makeFlow, synProbe } from './flow-factory.js';

const config = loadDetectionConfig({});
const T0 = 1_700_000_000_000;

describe('detect/detectors', () => {
  describe('PortScanDetector#observe()', () => {
    /** A lone-ACK probe to dst:port answered by RST, or a mid-connection ACK-only flow that got ACKs back. */
    const ackFlow = (dst: string, port: number, t: number, answeredBy: 'rst' | 'ack'): FlowRecord =>
      makeFlow({
        ...synProbe('10.0.0.66', dst, port, t),
        fwdSyn: 0,
        fwdAck: 1,
        bwdRst: answeredBy === 'rst' ? 1 : 0,
        bwdPackets: answeredBy === 'rst' ? 1 : 2,
        endReason: answeredBy === 'rst' ? 'rst' : 'idle',
      });
    const ping = (dst: string, t: number, replied: boolean, v6 = false): FlowRecord =>
      makeFlow({
        srcIp: v6 ? 'fd00::66' : '10.0.0.66',
        dstIp: dst,
        protocol: v6 ? 58 : 1,
        srcPort: v6 ? 128 : 8,
        dstPort: 0,
        firstSeenMs: t,
        packets: replied ? 2 : 1,
        fwdPackets: 1,
        bwdPackets: replied ? 1 : 0,
        fwdPayloadBytes: 56,
        bwdPayloadBytes: replied ? 56 : 0,
        endReason: 'idle',
      });

    it('a second, hour-long instance reports slow scans (one probe every 30 s) and leaves fast ones to the first', () => {
      const fast = new PortScanDetector(config.portScan, 1000);
      const slowConfig = {
        ...config.portScan,
        windowSec: config.portScan.slowWindowSec,
        minPorts: config.portScan.slowMinDistinct,
        minHosts: config.portScan.slowMinDistinct,
      };
      const slow = new PortScanDetector(slowConfig, 1000, 20_000, { defer: fast });
      expect(slow.name).to.equal('slow_port_scan');
      // 70 ports of one host over 35 minutes: never 20 within a minute.
      const paced = Array.from({ length: 70 }, (_, i) => synProbe('10.0.0.66', '10.0.0.9', 2000 + i, T0 + i * 30_000));
      const out = paced.flatMap((f) => [...fast.observe([f]), ...slow.observe([f])]);
      expect(out).to.have.length(11); // at the 60th probe, then one per new probe
      expect(out[0]).to.deep.include({ category: 'port_scan', title: 'Slow port scan of 10.0.0.9 from 10.0.0.66', target: '10.0.0.9', count: 60 });
      expect(out[0]!.details).to.deep.include({ kind: 'vertical', slow: true, distinct: 60, windowSec: 3600 });
      // A fast scan of 100 ports in 10 s: the first instance reports it; the slow one, seeing the same, defers.
      const fast2 = new PortScanDetector(config.portScan, 1000);
      const slow2 = new PortScanDetector(slowConfig, 1000, 20_000, { defer: fast2 });
      const burst = Array.from({ length: 100 }, (_, i) => synProbe('10.0.0.77', '10.0.0.9', 3000 + i, T0 + i * 100));
      const f2 = fast2.observe(burst);
      expect(f2).to.have.length(1);
      expect(f2[0]!.details).to.deep.include({ slow: false });
      expect(slow2.observe(burst)).to.deep.equal([]);
    });

    it("the slow instance reads the fast one's probes of a batch both observed: the findings of classifying it again", () => {
      const slowConfig = {
        ...config.portScan,
        windowSec: config.portScan.slowWindowSec,
        minPorts: config.portScan.slowMinDistinct,
        minHosts: config.portScan.slowMinDistinct,
      };
      // Paced over 35 minutes, in batches of three: an IPv4 source probing 70 ports of one host, an IPv6 source pinging
      // 70 hosts, UDP probes to 70 hosts on one port.
      const batches = Array.from({ length: 70 }, (_, i) => [
        synProbe('10.0.0.66', '10.0.0.9', 2000 + i, T0 + i * 30_000),
        ping(`fd00::${i + 1}`, T0 + i * 30_000 + 1, false, true),
        makeFlow({
          srcIp: '10.0.0.67',
          dstIp: `10.0.3.${i + 1}`,
          protocol: 17,
          srcPort: 5000,
          dstPort: 161,
          firstSeenMs: T0 + i * 30_000 + 2,
          fwdPackets: 1,
          bwdPackets: 0,
          endReason: 'idle',
        }),
      ]);
      const fastA = new PortScanDetector(config.portScan, 1000);
      const slowA = new PortScanDetector(slowConfig, 1000, 20_000, { defer: fastA });
      const fastB = new PortScanDetector(config.portScan, 1000);
      const slowB = new PortScanDetector(slowConfig, 1000, 20_000, { defer: fastB });
      const shared = batches.flatMap((b) => [...fastA.observe(b), ...slowA.observe(b)]);
      // The same flows in another array: not the batch the fast instance observed, classified again.
      const own = batches.flatMap((b) => [...fastB.observe(b), ...slowB.observe([...b])]);
      expect(fastA.probesOf(batches[69]!)).to.not.equal(null);
      expect(fastB.probesOf([...batches[69]!])).to.equal(null);
      expect(shared.map((f) => f.target)).to.include.members(['10.0.0.9', '*:echo/58', '*:161/17']);
      expect(shared.every((f) => f.details.slow === true)).to.equal(true);
      expect(shared).to.deep.equal(own);
    });

    it('reports a ping sweep (ICMP and ICMPv6 echo to many hosts, answered or not) as kind icmp_sweep', () => {
      const d = new PortScanDetector(config.portScan, 1000);
      const [f, ...rest] = d.observe(Array.from({ length: 30 }, (_, i) => ping(`10.0.1.${i + 1}`, T0 + i * 50, i % 2 === 0)));
      expect(rest).to.deep.equal([]);
      expect(f).to.deep.include({ category: 'port_scan', srcIp: '10.0.0.66', dstIp: null, dstPort: null, protocol: 1, target: '*:echo/1', count: 30 });
      expect(f!.title).to.equal('Ping sweep across hosts from 10.0.0.66');
      expect(f!.details).to.include({ kind: 'icmp_sweep', distinct: 30 });
      const [g] = new PortScanDetector(config.portScan, 1000).observe(Array.from({ length: 25 }, (_, i) => ping(`fd00::${i + 1}`, T0 + i, true, true)));
      expect(g!.details).to.include({ kind: 'icmp_sweep', distinct: 25 });
      // Fewer hosts than the threshold, or echo replies (type 0 is keyed as its request), are no sweep.
      expect(new PortScanDetector(config.portScan, 1000).observe(Array.from({ length: 19 }, (_, i) => ping(`10.0.1.${i + 1}`, T0 + i, true)))).to.deep.equal(
        [],
      );
    });

    it('reports an ACK sweep (lone ACKs answered by RST or nothing) as kind ack_sweep, not ACK-only mid-connection flows', () => {
      const d = new PortScanDetector(config.portScan, 1000);
      const [f, ...rest] = d.observe(Array.from({ length: 40 }, (_, i) => ackFlow(`10.0.2.${i + 1}`, 80, T0 + i * 20, 'rst')));
      expect(rest).to.deep.equal([]);
      expect(f).to.deep.include({ dstPort: 80, protocol: 6, target: '*:80/6', count: 40 });
      expect(f!.title).to.equal('TCP ACK sweep of port 80 across hosts from 10.0.0.66');
      expect(f!.details).to.include({ kind: 'ack_sweep', distinct: 40 });
      // Idle connections seen from their middle get ACKs back: no probe.
      expect(
        new PortScanDetector(config.portScan, 1000).observe(Array.from({ length: 40 }, (_, i) => ackFlow(`10.0.2.${i + 1}`, 443, T0 + i * 20, 'ack'))),
      ).to.deep.equal([]);
    });

    it('raises one vertical finding past minPorts unanswered probes, then reports only new probes', () => {
      const d = new PortScanDetector(config.portScan, 1000);
      const batch1 = Array.from({ length: 25 }, (_, i) => synProbe('10.0.0.66', '10.0.0.9', 1000 + i, T0 + i * 10));
      const f1 = d.observe(batch1);
      expect(f1).to.have.length(1);
      expect(f1[0]).to.include({
        category: 'port_scan',
        srcIp: '10.0.0.66',
        dstIp: '10.0.0.9',
        target: '10.0.0.9',
        count: 25,
        threatIp: '10.0.0.66',
        severity: 'medium',
      });
      expect(f1[0]!.details).to.include({ kind: 'vertical', distinct: 25 });
      const f2 = d.observe([synProbe('10.0.0.66', '10.0.0.9', 2000, T0 + 1000)]);
      expect(f2).to.have.length(1);
      expect(f2[0]!.count).to.equal(1);
      expect(f2[0]!.details).to.include({ distinct: 26 });
    });

    it('gives the protocol only when all probes of the host share it, and the time span of the new probes only', () => {
      const d = new PortScanDetector(config.portScan, 1000);
      const udp = (port: number, t: number) =>
        makeFlow({
          srcIp: '10.0.0.66',
          dstIp: '10.0.0.9',
          protocol: 17,
          dstPort: port,
          firstSeenMs: t,
          fwdPackets: 1,
          bwdPackets: 0,
          packets: 1,
          fwdPayloadBytes: 0,
          bwdPayloadBytes: 0,
          endReason: 'idle',
        });
      const tcp = Array.from({ length: 20 }, (_, i) => synProbe('10.0.0.66', '10.0.0.9', 1000 + i, T0 + 100 * (20 - i)));
      const [f1] = d.observe(tcp);
      expect(f1).to.include({ protocol: 6, count: 20, firstSeenMs: T0 + 100, lastSeenMs: T0 + 2000 });
      // Two UDP probes (one answered by nobody, one late): the host's probes now mix TCP and UDP.
      const [f2, ...rest] = d.observe([udp(53, T0 + 5000), udp(54, T0 + 3000)]);
      expect(rest).to.deep.equal([]);
      expect(f2).to.include({ protocol: null, count: 2, firstSeenMs: T0 + 3000, lastSeenMs: T0 + 5000 });
      expect(f2!.details).to.include({ distinct: 22, probesInWindow: 22, unansweredRatio: 1 });
      expect(f2!.description).to.equal('10.0.0.66 probed 22 ports of 10.0.0.9 within 60 s; 22 of 22 probes got no session.');
    });

    it('stays quiet below minPorts, when probes are answered, and when they are spread beyond the window', () => {
      const few = new PortScanDetector(config.portScan, 1000);
      expect(few.observe(Array.from({ length: 19 }, (_, i) => synProbe('10.0.0.66', '10.0.0.9', 1000 + i, T0 + i)))).to.deep.equal([]);
      const answered = new PortScanDetector(config.portScan, 1000);
      const sessions = Array.from({ length: 30 }, (_, i) => makeFlow({ srcIp: '10.0.0.5', dstIp: '10.0.0.9', dstPort: 1000 + i, firstSeenMs: T0 + i }));
      expect(answered.observe(sessions)).to.deep.equal([]);
      const slow = new PortScanDetector(config.portScan, 1000);
      const out = Array.from({ length: 30 }, (_, i) => slow.observe([synProbe('10.0.0.66', '10.0.0.9', 1000 + i, T0 + i * 5000)])).flat();
      expect(out, '30 probes 5 s apart: at most 12 in a 60 s window').to.deep.equal([]);
    });

    it('counts FIN, NULL and Xmas probes (no SYN, no ACK, no payload) as probes, but not mid-connection flows without SYN', () => {
      const stealth = (flags: Partial<Record<'fwdFin' | 'fwdPsh' | 'fwdUrg', number>>, port: number, t: number) =>
        makeFlow({
          srcIp: '10.0.0.77',
          dstIp: '10.0.0.9',
          dstPort: port,
          firstSeenMs: t,
          durationUs: 200,
          packets: 2,
          fwdPackets: 1,
          bwdPackets: 1,
          fwdPayloadBytes: 0,
          bwdPayloadBytes: 0,
          fwdSyn: 0,
          bwdSyn: 0,
          fwdAck: 0,
          bwdAck: 1,
          bwdRst: 1,
          fwdRst: 0,
          fwdFin: 0,
          bwdFin: 0,
          fwdPsh: 0,
          bwdPsh: 0,
          fwdUrg: 0,
          endReason: 'rst',
          ...flags,
        });
      for (const [scan, flags] of [
        ['FIN', { fwdFin: 1 }],
        ['NULL', {}],
        ['Xmas', { fwdFin: 1, fwdPsh: 1, fwdUrg: 1 }],
      ] as const) {
        const d = new PortScanDetector(config.portScan, 1000);
        const f = d.observe(Array.from({ length: 25 }, (_, i) => stealth(flags, 1000 + i, T0 + i * 10)));
        expect(f, scan).to.have.length(1);
        expect(f[0], scan).to.include({ category: 'port_scan', srcIp: '10.0.0.77', target: '10.0.0.9', count: 25 });
      }
      // Flows first seen mid-connection (no SYN, but ACKs and payload) are not probes.
      const midstream = new PortScanDetector(config.portScan, 1000);
      const flows = Array.from({ length: 30 }, (_, i) =>
        makeFlow({ srcIp: '10.0.0.5', dstIp: '10.0.0.9', dstPort: 1000 + i, firstSeenMs: T0 + i, fwdSyn: 0, bwdSyn: 0 }),
      );
      expect(midstream.observe(flows)).to.deep.equal([]);
      const ackOnly = new PortScanDetector(config.portScan, 1000);
      const acks = Array.from({ length: 30 }, (_, i) =>
        makeFlow({
          srcIp: '10.0.0.5',
          dstIp: '10.0.0.9',
          dstPort: 1000 + i,
          firstSeenMs: T0 + i,
          fwdSyn: 0,
          bwdSyn: 0,
          fwdAck: 1,
          fwdPayloadBytes: 0,
          bwdPayloadBytes: 0,
          fwdFin: 0,
        }),
      );
      expect(ackOnly.observe(acks), 'ACK scans stay out (indistinguishable from stray ACKs)').to.deep.equal([]);
    });

    it('raises a horizontal finding for one port across many hosts', () => {
      const d = new PortScanDetector(config.portScan, 1000);
      const probes = Array.from({ length: 30 }, (_, i) => synProbe('10.0.0.66', `10.0.1.${i + 1}`, 445, T0 + i));
      const f = d.observe(probes);
      expect(f).to.have.length(1);
      expect(f[0]).to.include({ target: '*:445/6', dstIp: null, dstPort: 445, count: 30 });
      expect(f[0]!.details).to.include({ kind: 'horizontal', distinct: 30 });
    });
  });

  describe('SynFloodDetector#observe()', () => {
    const syn = (src: string, i: number) => synProbe(src, '10.0.0.9', 443, T0 + i);
    /** The sustained rule alone (499 SYNs within 0.5 s would make a burst). */
    const sustained = { ...config.synFlood, burstMinSyn: 0 };
    it('one source: dos; many sources: ddos; below the threshold: nothing', () => {
      expect(new SynFloodDetector(sustained, 1000).observe(Array.from({ length: 499 }, (_, i) => syn('10.0.0.66', i)))).to.deep.equal([]);
      const single = new SynFloodDetector(config.synFlood, 1000).observe(Array.from({ length: 600 }, (_, i) => syn('10.0.0.66', i)));
      expect(single, 'the sustained finding stands for the burst too').to.have.length(1);
      expect(single[0]).to.include({ category: 'dos', srcIp: '10.0.0.66', target: '10.0.0.9:443/6', count: 600, severity: 'high' });
      const many = new SynFloodDetector(config.synFlood, 1000).observe(Array.from({ length: 600 }, (_, i) => syn(`10.0.2.${i % 50}`, i)));
      expect(many).to.have.length(1);
      expect(many[0]!.category).to.equal('ddos');
      expect(many[0]!.details).to.include({ sources: 50 });
    });
  });

  describe('SynFloodDetector#observe() short bursts', () => {
    /** A half-open attempt: one SYN, never acknowledged (the victim answered or not: a SYN-ACK or nothing). */
    const halfOpen = (src: string, t: number, synAck = false): FlowRecord =>
      makeFlow({
        ...synProbe(src, '198.51.100.5', 443, t),
        bwdSyn: synAck ? 1 : 0,
        bwdRst: 0,
        bwdAck: synAck ? 1 : 0,
        bwdPackets: synAck ? 1 : 0,
        endReason: 'idle',
      });
    /** A completed connection to the same service (handshake, a request, an answer). */
    const completed = (src: string, t: number): FlowRecord => makeFlow({ srcIp: src, dstIp: '198.51.100.5', dstPort: 443, firstSeenMs: t });

    it('200 half-open SYNs in 0.2 s from one source: dos, medium, with the rate', () => {
      const flows = Array.from({ length: 200 }, (_, i) => halfOpen('192.0.2.10', T0 + i));
      const f = new SynFloodDetector(config.synFlood, 1000).observe(flows);
      expect(f).to.have.length(1);
      expect(f[0]).to.include({ category: 'dos', severity: 'medium', srcIp: '192.0.2.10', target: '198.51.100.5:443/6', dstPort: 443, count: 200 });
      expect(f[0]!.details).to.deep.equal({
        detector: 'syn_flood',
        kind: 'syn_burst',
        halfOpenSynInWindow: 200,
        completedSynInWindow: 0,
        synPerSec: 200,
        sources: 1,
        windowSec: 1,
        threshold: 100,
        maxCompletedShare: 0.1,
        countUnit: 'packets',
      });
      // A victim that answers every SYN (SYN cookies) is still flooded: the initiator never acknowledges.
      const answered = new SynFloodDetector(config.synFlood, 1000).observe(Array.from({ length: 200 }, (_, i) => halfOpen('192.0.2.10', T0 + i, true)));
      expect(answered.map((x) => x.details['kind'])).to.deep.equal(['syn_burst']);
    });

    it('severity by rate: high from 1,000 per second, critical from 10,000', () => {
      const at = (count: number, spanMs: number): string =>
        new SynFloodDetector({ ...config.synFlood, minSyn: 100_000_000 }, 1000).observe(
          Array.from({ length: count }, (_, i) => halfOpen(`192.0.2.${i % 5}`, T0 + (i * spanMs) / count)),
        )[0]!.severity;
      expect(at(1000, 900)).to.equal('high');
      expect(at(10_000, 900)).to.equal('critical');
    });

    it('below the rate, spread over more than the window, or a flash crowd that completes its handshakes: nothing', () => {
      const d = new SynFloodDetector(config.synFlood, 1000);
      expect(d.observe(Array.from({ length: 99 }, (_, i) => halfOpen('192.0.2.10', T0 + i * 10)))).to.deep.equal([]);
      // 150 attempts over 3 s: at most 50 within any second.
      expect(new SynFloodDetector(config.synFlood, 1000).observe(Array.from({ length: 150 }, (_, i) => halfOpen('192.0.2.11', T0 + i * 20)))).to.deep.equal([]);
      // 400 clients within 1 s, all completing; then 120 half-open among 200 completed (37.5% completed).
      const crowd = Array.from({ length: 400 }, (_, i) => completed(`10.1.${i >> 8}.${i & 255}`, T0 + i));
      expect(new SynFloodDetector(config.synFlood, 1000).observe(crowd)).to.deep.equal([]);
      const mixed = [...Array.from({ length: 120 }, (_, i) => halfOpen('192.0.2.12', T0 + i)), ...crowd.slice(0, 200)];
      expect(new SynFloodDetector(config.synFlood, 1000).observe(mixed)).to.deep.equal([]);
    });

    it('a fast port scan (one SYN per port) and a host sweep are no burst', () => {
      const scan = Array.from({ length: 1000 }, (_, i) => synProbe('192.0.2.20', '198.51.100.5', 1 + i, T0 + i / 2));
      expect(new SynFloodDetector(config.synFlood, 1000).observe(scan)).to.deep.equal([]);
      const sweep = Array.from({ length: 250 }, (_, i) => synProbe('192.0.2.20', `198.51.100.${i}`, 443, T0 + i));
      expect(new SynFloodDetector(config.synFlood, 1000).observe(sweep)).to.deep.equal([]);
    });

    it('is off with VIGIL_DETECT_SYN_BURST_MIN=0', () => {
      const off = loadDetectionConfig({ VIGIL_DETECT_SYN_BURST_MIN: '0' }).synFlood;
      expect(new SynFloodDetector(off, 1000).observe(Array.from({ length: 200 }, (_, i) => halfOpen('192.0.2.10', T0 + i)))).to.deep.equal([]);
    });
  });

  describe('ReflectionDetector#observe()', () => {
    /** A one-packet SYN-ACK from reflector `src` to 10.9.9.9:port, unanswered. */
    const synAck = (src: string, port: number, t: number): FlowRecord =>
      makeFlow({ ...synProbe(src, '10.9.9.9', port, t), srcPort: 80, fwdAck: 1, bwdSyn: 0, bwdPackets: 0, bwdRst: 0, packets: 1 });
    const reply = (src: string, srcPort: number, t: number): FlowRecord =>
      makeFlow({
        srcIp: src,
        srcPort,
        dstIp: '10.9.9.9',
        dstPort: 40000,
        protocol: 17,
        firstSeenMs: t,
        packets: 1,
        fwdPackets: 1,
        bwdPackets: 0,
        fwdPayloadBytes: 1200,
        bwdPayloadBytes: 0,
      });

    it("counts SYN-ACKs sprayed over the victim's ports from many reflectors as one ddos", () => {
      const d = new ReflectionDetector(config.reflection, 1000);
      const flows = Array.from({ length: 600 }, (_, i) => synAck(`198.51.100.${i % 20}`, 1024 + i, T0 + i));
      const [f, ...rest] = d.observe(flows);
      expect(rest).to.deep.equal([]);
      expect(f).to.deep.include({ category: 'ddos', severity: 'high', dstIp: '10.9.9.9', dstPort: null, protocol: 6, count: 600 });
      expect(f!.details).to.deep.include({ detector: 'reflection', kind: 'syn_ack_reflection', sources: 20, packetsInWindow: 600 });
      // Below the threshold, or SYN-ACKs the victim asked for (it sent the SYN), nothing.
      expect(new ReflectionDetector(config.reflection, 1000).observe(flows.slice(0, 499))).to.deep.equal([]);
      const asked = flows.map((f) => ({ ...f, bwdSyn: 1 }));
      expect(new ReflectionDetector(config.reflection, 1000).observe(asked)).to.deep.equal([]);
    });

    it('counts replies from amplifier ports the victim never asked for; its own DNS answers are not', () => {
      const [f] = new ReflectionDetector(config.reflection, 1000).observe(Array.from({ length: 500 }, (_, i) => reply('192.0.2.53', 123, T0 + i)));
      expect(f).to.deep.include({ category: 'dos', srcIp: '192.0.2.53', srcPort: 123, protocol: 17 });
      expect(f!.details).to.deep.include({ kind: 'udp_amplification', amplifierPort: 123, sources: 1 });
      // Answered (the flow is the victim's own query: it sent a packet), or from a port no amplifier uses.
      const own = Array.from({ length: 600 }, (_, i) => makeFlow({ ...reply('192.0.2.53', 53, T0 + i), bwdPackets: 1 }));
      expect(new ReflectionDetector(config.reflection, 1000).observe(own)).to.deep.equal([]);
      expect(new ReflectionDetector(config.reflection, 1000).observe(Array.from({ length: 600 }, (_, i) => reply('192.0.2.53', 4444, T0 + i)))).to.deep.equal(
        [],
      );
    });
  });

  describe('PacketFloodDetector#observe()', () => {
    const udp = (over: Parameters<typeof makeFlow>[0]) =>
      makeFlow({ protocol: 17, srcIp: '10.0.0.66', dstIp: '10.0.0.9', dstPort: 9999, fwdSyn: 0, bwdSyn: 0, bwdPackets: 0, ...over });
    it('flags one-way UDP packets past minPackets within the window', () => {
      const f = new PacketFloodDetector(config.flood, 1000).observe([udp({ fwdPackets: 3000, packets: 3000, durationUs: 2e6 })]);
      expect(f).to.have.length(1);
      expect(f[0]).to.include({ category: 'dos', count: 3000, severity: 'high' });
      expect(f[0]!.details).to.include({ kind: 'udp_flood', packetsInWindow: 3000 });
    });
    it('ignores answered traffic and spreads long flows over their duration', () => {
      expect(new PacketFloodDetector(config.flood, 1000).observe([udp({ fwdPackets: 3000, bwdPackets: 2500, durationUs: 2e6 })])).to.deep.equal([]);
      expect(new PacketFloodDetector(config.flood, 1000).observe([udp({ fwdPackets: 3000, durationUs: 100e6 })]), '300 packets per 10 s').to.deep.equal([]);
    });
    it('counts snapshot increases, not cumulative totals twice', () => {
      const d = new PacketFloodDetector(config.flood, 1000);
      const id = 987654;
      expect(d.observe([udp({ id, fwdPackets: 1500, durationUs: 1e6, endReason: 'snapshot' })])).to.deep.equal([]);
      const f = d.observe([udp({ id, fwdPackets: 1900, durationUs: 2e6, endReason: 'idle' })]);
      expect(f, '1900 packets in total: below 2000').to.deep.equal([]);
      const g = d.observe([udp({ id: id + 1, fwdPackets: 200, durationUs: 1e5 })]);
      expect(g).to.have.length(1);
      expect(g[0]!.details).to.include({ packetsInWindow: 2100 });
    });
    it('many senders to one unicast receiver: ddos (not when one sender dominates, not to multicast)', () => {
      const spread = Array.from({ length: 40 }, (_, i) => udp({ srcIp: `203.0.113.${i + 1}`, fwdPackets: 100, durationUs: 1e6 }));
      const f = new PacketFloodDetector(config.flood, 1000).observe(spread);
      expect(f).to.have.length(1);
      expect(f[0]).to.include({ category: 'ddos', dstIp: '10.0.0.9', target: '10.0.0.9', count: 4000 });
      expect(f[0]!.details).to.include({ sources: 40, distributed: true, kind: 'udp_flood' });
      const dominated = [...spread.slice(0, 12), udp({ srcIp: '198.51.100.1', fwdPackets: 5000, durationUs: 1e6 })];
      expect(new PacketFloodDetector(config.flood, 1000).observe(dominated).map((x) => x.category)).to.deep.equal(['dos']);
      const mcast = spread.map((x) => ({ ...x, dstIp: '239.255.255.250' }));
      expect(new PacketFloodDetector(config.flood, 1000).observe(mcast)).to.deep.equal([]);
    });

    it('labels ICMPv6 floods icmp_flood', () => {
      const f = new PacketFloodDetector(config.flood, 1000).observe([
        udp({ protocol: 58, srcIp: '2001:db8::2', dstIp: '2001:db8::1', fwdPackets: 30000, durationUs: 3e6 }),
      ]);
      expect(f[0]!.details).to.include({ kind: 'icmp_flood' });
      expect(f[0]!.severity).to.equal('critical');
    });
  });

  describe('BruteForceDetector#observe()', () => {
    const login = (i: number, bytes = 3000) =>
      makeFlow({
        srcIp: '10.0.0.66',
        dstIp: '10.0.0.9',
        dstPort: 2222,
        srcPort: 50000 + i,
        firstSeenMs: T0 + i * 5000,
        durationUs: 3e6,
        fwdPayloadBytes: bytes / 2,
        bwdPayloadBytes: bytes / 2,
      });
    it('flags many short alike connections to one service, whatever the port', () => {
      const f = new BruteForceDetector(config.bruteForce, 1000).observe(Array.from({ length: 10 }, (_, i) => login(i, 3000 + (i % 2) * 100)));
      expect(f).to.have.length(1);
      expect(f[0]).to.include({ category: 'brute_force', target: '10.0.0.9:2222/6', count: 10, dstPort: 2222, severity: 'medium' });
    });

    it('rates guessing against a login service (SSH, RDP...) high, ten times the threshold critical', () => {
      const ssh = (i: number) =>
        makeFlow({
          srcIp: '10.0.0.66',
          dstIp: '10.0.0.9',
          dstPort: 22,
          srcPort: 50000 + i,
          firstSeenMs: T0 + i * 100,
          durationUs: 3e6,
          fwdPayloadBytes: 2600,
          bwdPayloadBytes: 2300,
        });
      const d = new BruteForceDetector(config.bruteForce, 1000);
      expect(d.observe(Array.from({ length: 10 }, (_, i) => ssh(i)))[0]).to.include({ severity: 'high' });
      expect(d.observe(Array.from({ length: 80 }, (_, i) => ssh(i + 10)))[0]).to.include({ severity: 'critical', count: 80 });
    });
    it('ignores too few attempts and connections of very different sizes', () => {
      expect(new BruteForceDetector(config.bruteForce, 1000).observe(Array.from({ length: 7 }, (_, i) => login(i)))).to.deep.equal([]);
      expect(new BruteForceDetector(config.bruteForce, 1000).observe(Array.from({ length: 12 }, (_, i) => login(i, 500 * 2 ** (i % 6))))).to.deep.equal([]);
    });
    it('ignores parallel downloads and one-sided retry loops (unbalanced or large connections)', () => {
      const download = (i: number) =>
        makeFlow({
          srcIp: '10.0.0.5',
          dstIp: '198.51.100.7',
          dstPort: 80,
          srcPort: 53000 + i,
          firstSeenMs: T0 + i * 5,
          durationUs: 7e6,
          fwdPayloadBytes: 360,
          bwdPayloadBytes: 24000 + i * 50,
        });
      expect(new BruteForceDetector(config.bruteForce, 1000).observe(Array.from({ length: 12 }, (_, i) => download(i)))).to.deep.equal([]);
      const tlsRetry = (i: number) =>
        makeFlow({
          srcIp: '10.0.0.5',
          dstIp: '198.51.100.8',
          dstPort: 443,
          srcPort: 54000 + i,
          firstSeenMs: T0 + i * 300,
          durationUs: 2e5,
          fwdPayloadBytes: 517,
          bwdPayloadBytes: 3861,
        });
      expect(new BruteForceDetector(config.bruteForce, 1000).observe(Array.from({ length: 12 }, (_, i) => tlsRetry(i)))).to.deep.equal([]);
      const big = (i: number) =>
        makeFlow({
          srcIp: '10.0.0.5',
          dstIp: '198.51.100.9',
          dstPort: 8080,
          srcPort: 55000 + i,
          firstSeenMs: T0 + i * 1000,
          durationUs: 2e6,
          fwdPayloadBytes: 30000,
          bwdPayloadBytes: 30000,
        });
      expect(new BruteForceDetector(config.bruteForce, 1000).observe(Array.from({ length: 12 }, (_, i) => big(i)))).to.deep.equal([]);
    });

    it('reports only attempts not reported before, after the window drops old ones (attempts out of order)', () => {
      const d = new BruteForceDetector(config.bruteForce, 1000);
      expect(d.observe(Array.from({ length: 10 }, (_, i) => login(i)))[0]).to.include({ count: 10, firstSeenMs: T0, lastSeenMs: T0 + 45_000 + 3000 });
      // Latest start 150 s: the window (120 s) keeps the attempts from 30 s on, four of them reported.
      const [f2] = d.observe([30, 12, 25, 20, 11].map((i) => login(i)));
      expect(f2).to.include({ count: 5, firstSeenMs: T0 + 55_000, lastSeenMs: T0 + 153_000 });
      expect(f2?.details).to.include({ attemptsInWindow: 9, sizeCv: 0 });
      // Latest 155 s: the attempt at 30 s leaves; one new attempt among eight reported.
      const [f3] = d.observe([login(31)]);
      expect(f3).to.include({ count: 1, firstSeenMs: T0 + 155_000, lastSeenMs: T0 + 158_000 });
      expect(f3?.details).to.include({ attemptsInWindow: 9 });
      // A repeat is one more attempt (same service), the others stay reported.
      expect(d.observe([login(31)])[0]?.details).to.include({ attemptsInWindow: 10 });
    });

    it('coefficientOfVariation()', () => {
      expect(coefficientOfVariation([5, 5, 5])).to.equal(0);
      expect(coefficientOfVariation([1, 3])).to.be.closeTo(0.5, 1e-12);
    });
  });

  describe('BeaconDetector#observe()', () => {
    const call = (i: number, jitterMs = 0, port = 8443) =>
      makeFlow({ srcIp: '10.0.0.5', dstIp: '203.0.113.7', dstPort: port, srcPort: 40000 + i, firstSeenMs: T0 + i * 60_000 + jitterMs });
    it('flags regular connections to one destination (threat = the destination)', () => {
      const d = new BeaconDetector(config.beacon, 1000);
      const out = Array.from({ length: 8 }, (_, i) => d.observe([call(i, (i % 2) * 500)])).flat();
      expect(out.length).to.be.at.least(1);
      expect(out[0]).to.include({ category: 'beaconing', threatIp: '203.0.113.7', severity: 'medium' });
    });
    it('ignores connections from a public address into a private one, and flows opened by an unsolicited SYN-ACK', () => {
      const inbound = new BeaconDetector(config.beacon, 1000);
      const from = (i: number) => makeFlow({ ...call(i), srcIp: '203.0.113.7', dstIp: '10.0.0.5' });
      expect(Array.from({ length: 8 }, (_, i) => inbound.observe([from(i)])).flat()).to.deep.equal([]);
      const synAck = new BeaconDetector(config.beacon, 1000);
      const reflected = (i: number) => makeFlow({ ...call(i), fwdSyn: 1, fwdAck: 1, bwdSyn: 0, fwdPayloadBytes: 0, bwdPayloadBytes: 0, endReason: 'rst' });
      expect(Array.from({ length: 8 }, (_, i) => synAck.observe([reflected(i)])).flat()).to.deep.equal([]);
    });
    /** One long flow 10.0.0.5 -> dst:443 with `bursts` bursts every ~15 s (CICFlowMeter active/idle periods). */
    const session = (over: Partial<FlowRecord> & { bursts?: number; idleStdUs?: number; bytesPerBurst?: number } = {}): FlowRecord => {
      const { bursts = 13, idleStdUs = 50_000, bytesPerBurst = 1500, ...rest } = over;
      return makeFlow({
        srcIp: '10.0.0.5',
        dstIp: '203.0.113.7',
        dstPort: 443,
        protocol: 17,
        firstSeenMs: T0,
        durationUs: (bursts - 1) * 15_100_000 + 100_000,
        activeMeanUs: 100_000,
        activeStdUs: 10_000,
        idleMeanUs: 15_000_000,
        idleStdUs,
        idleMinUs: 14_900_000,
        idleMaxUs: 15_100_000,
        fwdPayloadBytes: (bursts * bytesPerBurst) / 2,
        bwdPayloadBytes: (bursts * bytesPerBurst) / 2,
        endReason: 'snapshot',
        ...rest,
      });
    };

    it('flags check-ins inside one long flow (bursts every 15 s), once per flow, snapshots included', () => {
      const d = new BeaconDetector(config.beacon, 1000);
      const [f, ...rest] = d.observe([session()]);
      expect(rest).to.deep.equal([]);
      expect(f).to.deep.include({ category: 'beaconing', severity: 'medium', dstIp: '203.0.113.7', dstPort: 443, threatIp: '203.0.113.7', count: 13 });
      expect(f!.details).to.deep.include({ series: 'in_flow', bursts: 13, medianIntervalSec: 15.1, idleMeanSec: 15, bytesPerBurst: 1500 });
      // The flow's later snapshot and its end: already reported.
      expect(d.observe([session({ bursts: 20 }), session({ bursts: 21, endReason: 'idle' })])).to.deep.equal([]);
    });

    it('not keepalives (under 256 payload bytes a burst), irregular idle periods, too few bursts, or a public DoH resolver', () => {
      const none = (f: FlowRecord): void => {
        expect(new BeaconDetector(config.beacon, 1000).observe([f])).to.deep.equal([]);
      };
      none(session({ bytesPerBurst: 80 }));
      none(session({ idleStdUs: 6_000_000 }));
      none(session({ bursts: 7 }));
      none(session({ dstIp: '1.1.1.1' }));
      none(session({ dstIp: '2001:4860:4860::8888', srcIp: 'fd00::5' }));
      // Jitter between half the limit and the limit: low.
      const [f] = new BeaconDetector(config.beacon, 1000).observe([session({ idleStdUs: 2_250_000 })]);
      expect(f).to.deep.include({ severity: 'low' });
    });

    it('ignores irregular intervals and DNS', () => {
      const irregular = new BeaconDetector(config.beacon, 1000);
      const jitter = [0, 40_000, 5_000, 55_000, 20_000, 1_000, 30_000, 50_000];
      expect(Array.from({ length: 8 }, (_, i) => irregular.observe([call(i, jitter[i])])).flat()).to.deep.equal([]);
      const dns = new BeaconDetector(config.beacon, 1000);
      expect(Array.from({ length: 8 }, (_, i) => dns.observe([call(i, 0, 53)])).flat()).to.deep.equal([]);
    });
    it('sorts starts that arrive out of order, in a slot freed by an evicted series', () => {
      const d = new BeaconDetector({ ...config.beacon, minConnections: 6 }, 10);
      // Twelve other series (and a thirteenth later start of each): two are evicted, their slots are reused.
      const others = (k: number) =>
        Array.from({ length: 12 }, (_, j) => makeFlow({ srcIp: '10.0.0.9', dstIp: `198.51.100.${j}`, dstPort: 8443, firstSeenMs: T0 - 1000 * j - k }));
      expect(d.observe([...others(0), ...others(1)])).to.deep.equal([]);
      const out = [2, 1, 0, 5, 4].map((i) => d.observe([call(i)])).flat();
      expect(out).to.deep.equal([]);
      const [f] = d.observe([call(3)]);
      expect(f).to.deep.include({ srcIp: '10.0.0.5', dstIp: '203.0.113.7', dstPort: 8443, count: 6, firstSeenMs: T0, lastSeenMs: T0 + 5 * 60_000 });
      expect(f?.details).to.deep.include({ connections: 6, medianIntervalSec: 60, jitter: 0, intervalsSec: [60, 60, 60, 60, 60] });
    });
  });

  describe('BlockedIpDetector#observe()', () => {
    it('reports traffic from and to blocked addresses, one finding per pair and batch', () => {
      const d = new BlockedIpDetector((ip) => ip === '203.0.113.9');
      const f = d.observe([
        makeFlow({ srcIp: '203.0.113.9', dstIp: '10.0.0.5' }),
        makeFlow({ srcIp: '203.0.113.9', dstIp: '10.0.0.5', dstPort: 22 }),
        makeFlow({ srcIp: '10.0.0.6', dstIp: '203.0.113.9' }),
        makeFlow({ srcIp: '10.0.0.6', dstIp: '198.51.100.1' }),
      ]);
      expect(f.map((x) => [x.srcIp, x.target, x.count, x.details.direction])).to.deep.equal([
        ['203.0.113.9', '10.0.0.5', 2, 'inbound'],
        ['203.0.113.9', '10.0.0.6', 1, 'outbound'],
      ]);
    });
  });
});
