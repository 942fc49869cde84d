import { expect } from 'chai';
import { loadDetectionConfig, type BeaconConfig } from '../../../../src/config/detection.js';
import { beaconStats, BeaconDetector, bowleySkewness, isRegular, medianAbsoluteDeviation, quartiles } from '../../../../src/detect/detectors/beacon.js';
import type { Finding } from '../../../../src/detect/finding.js';
import type { FlowRecord } from '../../../../src/native/flow-record.js';
import { makeFlow } from '../flow-factory.js';

const T0 = 1_700_000_000_000;
const config = (over: Partial<BeaconConfig> = {}): BeaconConfig => ({ ...loadDetectionConfig({}).beacon, ...over });

/** Deterministic numbers in [0, 1) (a fixed LCG: the tests must not depend on Math.random). */
function uniform(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 48271) % 2147483647;
    return x / 2147483647;
  };
}

/** Start times (ms) of `count` connections, each interval `intervalSec` times a factor from `factor()`. */
function startsOf(count: number, intervalSec: number, factor: () => number): number[] {
  const out = [T0];
  for (let i = 1; i < count; i++) out.push((out[i - 1] as number) + intervalSec * 1000 * factor());
  return out;
}

let port = 41000;
function tlsCall(t: number, over: Partial<FlowRecord> = {}): FlowRecord {
  return makeFlow({
    srcIp: '10.0.0.5',
    srcPort: port++,
    dstIp: '203.0.113.7',
    dstPort: 443,
    firstSeenMs: t,
    durationUs: 300_000,
    bytes: 4200,
    app: 'tls',
    appBy: 'content',
    serverName: 'c2.example.net',
    serverNameSource: 'sni',
    ...over,
  });
}

/** Feeds the flows one batch each (as a live sensor would over time) and collects the findings. */
function feed(d: BeaconDetector, flows: FlowRecord[]): Finding[] {
  return flows.flatMap((f) => d.observe([f]));
}

describe('detect/detectors/beacon', () => {
  describe('robust statistics (RITA analysis/beacons.go)', () => {
    it('quartiles(): medians of the whole and of the halves beside the median', () => {
      expect(quartiles([1, 2, 3, 4, 5, 6, 7])).to.deep.equal([2, 4, 6]);
      expect(quartiles([1, 2, 3, 4, 5, 6, 7, 8])).to.deep.equal([2.5, 4.5, 6.5]);
      expect(quartiles([5])).to.deep.equal([5, 5, 5]);
    });
    it('bowleySkewness() and medianAbsoluteDeviation()', () => {
      expect(bowleySkewness([1, 2, 3, 4, 5, 6, 7])).to.equal(0);
      // Q1 1.5, Q2 3, Q3 15: (1.5 + 15 - 6) / 13.5
      expect(bowleySkewness([1, 2, 3, 10, 20])).to.be.closeTo(10.5 / 13.5, 1e-12);
      expect(bowleySkewness([4, 4, 4, 4])).to.equal(0);
      expect(medianAbsoluteDeviation([1, 2, 3, 4, 100])).to.equal(1);
    });
    it('beaconStats(): +-30% jitter passes, exponential (human-like) spacing does not', () => {
      const c = config();
      const jittered = startsOf(
        12,
        60,
        (
          (r) => () =>
            0.7 + 0.6 * r()
        )(uniform(7)),
      );
      const s = beaconStats(
        jittered,
        jittered.map(() => 4200),
      );
      expect(s.jitter).to.be.below(0.2);
      expect(s.sizeScore).to.equal(1);
      expect(isRegular(s, 11, c)).to.equal(true);
      const poisson = startsOf(
        12,
        60,
        (
          (r) => () =>
            -Math.log(1 - r())
        )(uniform(7)),
      );
      const p = beaconStats(
        poisson,
        poisson.map(() => 4200),
      );
      expect(p.jitter).to.be.above(0.2);
      expect(isRegular(p, 11, c)).to.equal(false);
    });
  });

  describe('BeaconDetector#observe()', () => {
    it('follows a server name across two CDN addresses: HTTPS every 2 s with +-30% jitter (issue 15 C2 capture)', () => {
      const d = new BeaconDetector(config(), 1000);
      const r = uniform(11);
      const starts = startsOf(10, 2, () => 0.7 + 0.6 * r());
      const out = feed(
        d,
        starts.map((t, i) => tlsCall(t, { dstIp: i % 2 === 0 ? '203.0.113.7' : '198.51.100.7' })),
      );
      expect(out.length).to.be.at.least(1);
      const f = out[0]!;
      expect(f).to.deep.include({ category: 'beaconing', srcIp: '10.0.0.5', target: 'c2.example.net', dstPort: 443, severity: 'medium' });
      expect(f.details).to.deep.include({ series: 'server_name', serverName: 'c2.example.net', connections: 8, medianBytes: 4200, sizeScore: 1 });
      expect(f.details['addresses']).to.have.members(['203.0.113.7', '198.51.100.7']);
      expect(f.details['intervalsSec']).to.have.length(7);
      // Named flows make no address series (one alert per beacon, not one per address too).
      expect(out.every((x) => x.target === 'c2.example.net')).to.equal(true);
    });

    it('catches check-ins every 2 to 3.6 s and every hour (+-20%), and none for Poisson-like browsing', () => {
      const r = uniform(5);
      const fast = feed(
        new BeaconDetector(config(), 1000),
        startsOf(12, 2.8, () => (2 + 1.6 * r()) / 2.8).map((t) => tlsCall(t)),
      );
      expect(fast.length).to.be.at.least(1);
      const hourly = feed(
        new BeaconDetector(config(), 1000),
        startsOf(9, 3600, () => 0.8 + 0.4 * r()).map((t) => tlsCall(t, { serverName: 'updates.example.org' })),
      );
      expect(hourly.map((f) => f.details['medianIntervalSec'] as number)[0]).to.be.within(2880, 4320);
      const browsing = feed(
        new BeaconDetector(config(), 1000),
        startsOf(40, 30, () => -Math.log(1 - r())).map((t) => tlsCall(t, { serverName: 'news.example.com' })),
      );
      expect(browsing).to.deep.equal([]);
    });

    it('keeps name series apart while other names come and go past the cap (IPv4 and IPv6 sources, one name each)', () => {
      const d = new BeaconDetector(config(), 10);
      const out: Finding[] = [];
      for (let k = 0; k < 8; k++) {
        const t = T0 + k * 60_000;
        // Six one-off names a minute (48 in all, 10 series kept): their names are forgotten, their slots reused.
        const churn = Array.from({ length: 6 }, (_, j) => tlsCall(t + j, { srcIp: `10.0.1.${j}`, serverName: `n${k}-${j}.example` }));
        out.push(
          ...d.observe([
            tlsCall(t, { serverName: 'a.example' }),
            ...churn,
            tlsCall(t, { srcIp: 'fd00::5', serverName: 'a.example' }),
            tlsCall(t, { srcIp: '10.0.0.6', serverName: 'b.example' }),
          ]),
        );
      }
      expect(out.map((f) => [f.srcIp, f.target, f.details['connections']])).to.deep.equal([
        ['10.0.0.5', 'a.example', 8],
        ['fd00::5', 'a.example', 8],
        ['10.0.0.6', 'b.example', 8],
      ]);
    });

    it('looks a name up afresh in each batch: one forgotten after the last batch looked it up is not mistaken for kept', () => {
      const d = new BeaconDetector(config(), 2);
      const named = (t: number, srcIp: string, serverName: string): FlowRecord => tlsCall(t, { srcIp, serverName });
      const out: Finding[] = [];
      out.push(...d.observe([named(T0 - 120_000, '10.0.0.5', 'n.example')]));
      // n.example is the last name of this batch, from a source that keeps no name slot; the cap then forgets it.
      out.push(
        ...d.observe([named(T0 - 60_000, '10.0.0.6', 'p.example'), named(T0 - 60_000, '10.0.0.7', 'q.example'), named(T0 - 60_000, 'fd00::1', 'n.example')]),
      );
      for (let k = 0; k < 9; k++)
        out.push(...d.observe([named(T0 + k * 60_000, '10.0.0.5', 'n.example'), named(T0 + k * 60_000 + 20_000, '10.0.0.5', 'm.example')]));
      expect(out.map((f) => [f.target, f.details['connections']])).to.deep.equal([
        ['n.example', 8],
        ['m.example', 8],
        ['n.example', 9],
        ['m.example', 9],
      ]);
    });

    it('keeps per-address series for flows without a name', () => {
      const d = new BeaconDetector(config(), 1000);
      const out = feed(
        d,
        startsOf(8, 15, () => 1).map((t) => tlsCall(t, { serverName: null, serverNameSource: null, dstPort: 8443 })),
      );
      expect(out).to.have.length(1);
      expect(out[0]).to.deep.include({ target: '203.0.113.7:8443/6', threatIp: '203.0.113.7' });
      expect(out[0]!.details).to.include({ series: 'address', serverName: null, medianIntervalSec: 15, jitter: 0 });
    });

    it("keeps a series' first connection until its second (start, bytes, port, address), none of an evicted one", () => {
      const d = new BeaconDetector(config(), 2);
      const plain = { serverName: null, serverNameSource: null } as const;
      // A first connection a minute early (it would break the rhythm), forgotten when two other series open after it.
      const stale = tlsCall(T0 - 60_000, { ...plain, dstPort: 8443, bytes: 99 });
      const others = [1, 2].map((k) => tlsCall(T0 - 50_000, { ...plain, dstIp: `198.51.100.${k}` }));
      expect(d.observe([stale, ...others])).to.deep.equal([]);
      // One batch: the series of port 8443 opens, the one of port 8080 runs, then the first goes on. Series are judged
      // in the order of their first touch in the batch.
      const at = (k: number): number => T0 + k * 15_000;
      const out = d.observe([
        tlsCall(at(0), { ...plain, dstPort: 8443, bytes: 4200 }),
        ...[0, 1, 2, 3, 4, 5, 6, 7].map((k) => tlsCall(at(k) + 1000, { ...plain, dstPort: 8080 })),
        ...[1, 2, 3, 4, 5, 6, 7].map((k) => tlsCall(at(k), { ...plain, dstPort: 8443, bytes: 4200 + k })),
      ]);
      expect(out.map((f) => [f.target, f.details['connections'], f.count, f.firstSeenMs])).to.deep.equal([
        ['203.0.113.7:8443/6', 8, 8, at(0)],
        ['203.0.113.7:8080/6', 8, 8, at(0) + 1000],
      ]);
      expect(out[0]!.details).to.include({ medianIntervalSec: 15, jitter: 0, medianBytes: 4203.5 });
      // A name series: its port and address from its first flow, the others' addresses after it.
      const named = feed(new BeaconDetector(config(), 2), [
        tlsCall(at(0), { dstPort: 8443 }),
        ...[1, 2, 3, 4, 5, 6, 7].map((k) => tlsCall(at(k), { dstIp: '198.51.100.7' })),
      ]);
      expect(named).to.have.length(1);
      expect(named[0]).to.deep.include({ target: 'c2.example.net', dstPort: 8443, dstIp: '198.51.100.7', count: 8 });
      expect(named[0]!.details['addresses']).to.deep.equal(['203.0.113.7', '198.51.100.7']);
    });

    it('irregular sizes lower the severity to low (timing alone)', () => {
      const r = uniform(3);
      const out = feed(
        new BeaconDetector(config(), 1000),
        startsOf(8, 10, () => 1).map((t) => tlsCall(t, { bytes: Math.round(500 + 20000 * r()) })),
      );
      expect(out[0]).to.deep.include({ severity: 'low' });
      expect(out[0]!.details['sizeScore'] as number).to.be.below(0.7);
    });

    it('allowlists applications recognised by content and server names, not whole ports', () => {
      const every10 = startsOf(10, 10, () => 1);
      // DNS recognised by content: periodic by design.
      const dns = every10.map((t) => tlsCall(t, { dstPort: 53, protocol: 17, app: 'dns', appBy: 'content', serverName: null, serverNameSource: null }));
      expect(feed(new BeaconDetector(config(), 1000), dns)).to.deep.equal([]);
      // Something else on port 53 (only a port guess): judged.
      const fake = every10.map((t) => tlsCall(t, { dstPort: 53, protocol: 17, app: 'dns', appBy: 'port', serverName: null, serverNameSource: null }));
      expect(feed(new BeaconDetector(config(), 1000), fake)).to.have.length.at.least(1);
      // SIP recognised by content (a phone's REGISTER refreshes, nDPI's sip.pcap every 17 s): periodic by design.
      const sip = every10.map((t) => tlsCall(t, { dstPort: 5060, protocol: 17, app: 'sip', appBy: 'content', serverName: null, serverNameSource: null }));
      expect(feed(new BeaconDetector(config(), 1000), sip)).to.deep.equal([]);
      expect(feed(new BeaconDetector(config({ allowApps: ['dns'] }), 1000), sip)).to.have.length.at.least(1);
      // Default and configured names, with their subdomains.
      const check = every10.map((t) => tlsCall(t, { serverName: 'www.msftconnecttest.com' }));
      expect(feed(new BeaconDetector(config(), 1000), check)).to.deep.equal([]);
      const mine = every10.map((t) => tlsCall(t, { serverName: 'agent.backup.example.com' }));
      expect(feed(new BeaconDetector(config({ allowNames: ['backup.example.com'] }), 1000), mine)).to.deep.equal([]);
      // Without an application layer (no labels at all), the well-known ports stand in.
      const off = every10.map((t) => tlsCall(t, { dstPort: 123, protocol: 17, app: null, appBy: null, serverName: null, serverNameSource: null }));
      expect(feed(new BeaconDetector(config(), 1000), off)).to.deep.equal([]);
    });

    it('leaves regular runs of logins to the brute-force detector (FTP by content, SSH on any port)', () => {
      const every2 = startsOf(20, 2, () => 1);
      const ftp = every2.map((t) => tlsCall(t, { dstPort: 21, app: 'ftp', appBy: 'content', serverName: null, serverNameSource: null }));
      expect(feed(new BeaconDetector(config(), 1000), ftp)).to.deep.equal([]);
      const ssh = every2.map((t) => tlsCall(t, { dstPort: 902, app: 'ssh', appBy: 'content', serverName: null, serverNameSource: null }));
      expect(feed(new BeaconDetector(config(), 1000), ssh)).to.deep.equal([]);
      // The same run to an unlabelled port is a beacon.
      const other = every2.map((t) => tlsCall(t, { dstPort: 902, app: null, appBy: null, serverName: null, serverNameSource: null }));
      expect(feed(new BeaconDetector(config(), 1000), other)).to.have.length.at.least(1);
    });

    it('ignores intervals below minIntervalSec and multicast destinations', () => {
      const tight = startsOf(20, 0.5, () => 1).map((t) => tlsCall(t));
      expect(feed(new BeaconDetector(config(), 1000), tight)).to.deep.equal([]);
      const ssdpLike = startsOf(10, 30, () => 1).map((t) =>
        tlsCall(t, { dstIp: '239.255.255.250', dstPort: 1901, protocol: 17, serverName: null, serverNameSource: null, app: null, appBy: null }),
      );
      expect(feed(new BeaconDetector(config(), 1000), ssdpLike)).to.deep.equal([]);
    });
  });
});
