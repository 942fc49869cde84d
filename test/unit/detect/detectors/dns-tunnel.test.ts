import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { loadDetectionConfig, type DnsTunnelConfig } from '../../../../src/config/detection.js';
import { dnsGroup, DnsTunnelDetector, shannonEntropy } from '../../../../src/detect/detectors/dns-tunnel.js';
import type { FlowRecord } from '../../../../src/native/flow-record.js';
import { makeFlow } from '../flow-factory.js';

const T0 = 1_700_000_000_000;
const config = (over: Partial<DnsTunnelConfig> = {}): DnsTunnelConfig => ({ ...loadDetectionConfig({}).dnsTunnel, ...over });
/** The volume path alone: no short session is ever long enough. */
const volumeOnly = { shortMinQueries: 1_000_000 };

let port = 30000;
/** One query and its answer on a fresh client port (what a stub resolver sends). */
function lookup(query: string, qtype = 1, at = 0, over: Partial<FlowRecord> = {}): FlowRecord {
  const queryBytes = 12 + query.length + 2 + 4;
  return makeFlow({
    srcIp: '10.0.0.2',
    srcPort: port++,
    dstIp: '10.0.0.1',
    dstPort: 53,
    protocol: 17,
    firstSeenMs: T0 + at * 1000,
    durationUs: 20_000,
    endReason: 'idle',
    packets: 2,
    fwdPackets: 1,
    bwdPackets: 1,
    fwdPayloadBytes: queryBytes,
    bwdPayloadBytes: queryBytes + 16,
    dns: { query, qtype, rcode: 0, answers: [] },
    ...over,
  });
}

/** A hex label of `n` characters, different for every `seed` (SHA-256 of the seed, as a data-carrying label looks). */
const hex = (seed: number, n = 60): string => createHash('sha256').update(String(seed)).digest('hex').slice(0, n);

describe('detect/detectors/dns-tunnel', () => {
  describe('shannonEntropy()', () => {
    it('is 0 for one symbol, 1 for two equally frequent ones, 4 for all hex digits once', () => {
      expect(shannonEntropy('')).to.equal(0);
      expect(shannonEntropy('aaaa')).to.equal(0);
      expect(shannonEntropy('abab')).to.equal(1);
      expect(shannonEntropy('0123456789abcdef')).to.equal(4);
    });

    it('is the sum over all 256 buckets in order, to the last bit (characters above 255 in the last bucket)', () => {
      const reference = (t: string): number => {
        const n = new Array<number>(256).fill(0);
        for (const ch of t.split('')) n[Math.min(ch.charCodeAt(0), 255)]++;
        let h = 0;
        for (const k of n) if (k > 0) h -= (k / t.length) * Math.log2(k / t.length);
        return h;
      };
      for (const t of ['x', 'aab', 'q9zz-0_Z', '3f2a9c01b7e4d5a6c8b9e0f1a2b3c4d5', 'ünï\u0100\u4e2dcode', '\u00ff\u0100\u0101~ ']) {
        expect(shannonEntropy(t)).to.equal(reference(t));
      }
    });
  });

  describe('dnsGroup()', () => {
    it('groups by registered domain (public and private suffixes), by server for names under no suffix, never reverse lookups', () => {
      expect(dnsGroup('a.b.www.Example.co.uk.', '10.0.0.1')).to.deep.equal({ domain: 'example.co.uk', subdomain: 'a.b.www' });
      expect(dnsGroup('x1.mine.duckdns.org', '10.0.0.1')).to.deep.equal({ domain: 'mine.duckdns.org', subdomain: 'x1' });
      expect(dnsGroup('vaaaakardli.pirate.sea', '10.0.2.20')).to.deep.equal({ domain: 'pirate.sea', subdomain: 'vaaaakardli' });
      expect(dnsGroup('dnscat.546b03f5.19e4d098dc8c', '192.168.203.167')).to.deep.equal({ domain: '@192.168.203.167', subdomain: 'dnscat.546b03f5' });
      expect(dnsGroup('1.0.168.192.in-addr.arpa', '10.0.0.1')).to.equal(null);
      expect(dnsGroup('wpad', '10.0.0.1')).to.equal(null);
    });

    it('groups a name tldts cannot parse under the registered domain of its trailing host name labels (dns2tcp)', () => {
      // dns2tcp's first question: the `=` makes tldts give no domain at all.
      expect(dnsGroup('AAAAAH7wQA.=auth.dns2tcp.hsc.fr', '192.168.1.210')).to.deep.equal({ domain: 'hsc.fr', subdomain: 'aaaaah7wqa.=auth.dns2tcp' });
      // DNSExfiltrator's base64url label starting with `-`, an escaped byte, a label over 63 characters.
      expect(dnsGroup('7.-rCd7f6k.hsc.fr', '10.0.0.1')).to.deep.equal({ domain: 'hsc.fr', subdomain: '7.-rcd7f6k' });
      expect(dnsGroup('a\\000b.x.example.co.uk', '10.0.0.1')).to.deep.equal({ domain: 'example.co.uk', subdomain: 'a\\000b.x' });
      expect(dnsGroup(`${'a'.repeat(64)}.t.example.com`, '10.0.0.1')).to.deep.equal({ domain: 'example.com', subdomain: `${'a'.repeat(64)}.t` });
      // A name whose last labels are no host name cannot be delegated: its server is its group.
      expect(dnsGroup('abc.ex=ample', '10.0.0.9')).to.deep.equal({ domain: '@10.0.0.9', subdomain: 'abc' });
      expect(dnsGroup('x=y.com', '10.0.0.9')).to.deep.equal({ domain: '@10.0.0.9', subdomain: 'x=y' });
      expect(dnsGroup('=', '10.0.0.9')).to.equal(null);
    });

    it('answers a name asked again as the first time: the same domain, and the server of each question', () => {
      for (let k = 0; k < 2; k++) {
        expect(dnsGroup('a.b.www.Example.co.uk.', '10.0.0.1')).to.deep.equal({ domain: 'example.co.uk', subdomain: 'a.b.www' });
        expect(dnsGroup('dnscat.546b03f5.19e4d098dc8c', `192.168.203.${k}`)).to.deep.equal({ domain: `@192.168.203.${k}`, subdomain: 'dnscat.546b03f5' });
        expect(dnsGroup('1.0.168.192.in-addr.arpa', '10.0.0.1')).to.equal(null);
      }
      // More names than it remembers: each still gets its own group.
      for (let k = 0; k < 5000; k++) expect(dnsGroup(`n${k}.example.org`, '10.0.0.1')?.subdomain).to.equal(`n${k}`);
      expect(dnsGroup('x1.mine.duckdns.org', '10.0.0.1')).to.deep.equal({ domain: 'mine.duckdns.org', subdomain: 'x1' });
    });
  });

  describe('DnsTunnelDetector#observe()', () => {
    it('flags 30 unique long hex names under one domain (TXT) from one client, with the evidence', () => {
      const d = new DnsTunnelDetector(config(), 100);
      const flows = Array.from({ length: 30 }, (_, i) => lookup(`${hex(i)}.exfil.example.com`, 16, i));
      const [f, ...rest] = d.observe(flows);
      expect(rest).to.deep.equal([]);
      expect(f).to.deep.include({ category: 'dns_tunnel', severity: 'high', srcIp: '10.0.0.2', dstIp: '10.0.0.1', target: 'example.com', count: 30 });
      // A local resolver relays: the client is the address to look at.
      expect(f!.threatIp).to.equal('10.0.0.2');
      expect(f!.details).to.deep.include({
        domain: 'example.com',
        uniqueNames: 30,
        queries: 30,
        tunnelQtypeShare: 1,
        meanNameLength: 65,
        meanEntropy:
          Math.round((Array.from({ length: 30 }, (_, i) => shannonEntropy(`${hex(i)}.exfil`.replaceAll('.', ''))).reduce((x, y) => x + y) / 30) * 100) / 100,
        qtypes: { '16': 30 },
      });
      expect(f!.details['signals']).to.deep.equal(['many_names', 'long_names', 'high_entropy', 'tunnel_qtypes']);
      expect(f!.details['examples']).to.have.length(3);
    });

    it('needs the volume: 29 unique names are not enough, the 30th is', () => {
      const d = new DnsTunnelDetector(config(volumeOnly), 100);
      expect(d.observe(Array.from({ length: 29 }, (_, i) => lookup(`${hex(i)}.exfil.example.com`, 16, i)))).to.deep.equal([]);
      expect(d.observe([lookup(`${hex(99)}.exfil.example.com`, 16, 40)])).to.have.length(1);
    });

    it('needs an encoding signal: 100 short A lookups under one CDN domain are browsing', () => {
      const d = new DnsTunnelDetector(config(), 100);
      const flows = Array.from({ length: 100 }, (_, i) => lookup(`r${i}---sn-4g5e.googlevideo.com`, 1, i));
      expect(d.observe(flows)).to.deep.equal([]);
    });

    it('a public server answering the tunnel is the threat', () => {
      const d = new DnsTunnelDetector(config(), 100);
      const [f] = d.observe(Array.from({ length: 30 }, (_, i) => lookup(`${hex(i)}.t.example.net`, 16, i, { dstIp: '8.8.4.4' })));
      expect(f!.threatIp).to.equal('8.8.4.4');
    });

    it('counts the queries of one long flow through its snapshots, once each', () => {
      const d = new DnsTunnelDetector(config({ minQueriesPerFlow: 20, ...volumeOnly }), 100);
      const long = (fwdPackets: number, endReason: FlowRecord['endReason']): FlowRecord =>
        lookup('vaaaakardli.pirate.sea', 10, 0, {
          id: 777,
          srcPort: 44639,
          fwdPackets,
          bwdPackets: fwdPackets,
          packets: 2 * fwdPackets,
          fwdPayloadBytes: 76 * fwdPackets,
          bwdPayloadBytes: 160 * fwdPackets,
          endReason,
        });
      expect(d.observe([long(10, 'snapshot')])).to.deep.equal([]);
      const [f] = d.observe([long(25, 'snapshot')]);
      expect(f!.details).to.deep.include({ queries: 25, maxQueriesPerFlow: 25, meanQueryBytes: 76, uniqueNames: 1 });
      expect(f!.details['signals']).to.deep.equal(['one_flow_many_queries', 'long_names', 'tunnel_qtypes']);
      const [g] = d.observe([long(40, 'idle')]);
      expect(g).to.deep.include({ count: 15 });
      expect(g!.details).to.include({ queries: 40 });
    });

    it('flags a one-socket tunnel whose flow starts with an unparseable name (dns2tcp: 22 TXT queries of 118 bytes)', () => {
      const d = new DnsTunnelDetector(config(), 100);
      const flow = lookup('AAAAAH7wQA.=auth.dns2tcp.hsc.fr', 16, 0, {
        srcPort: 48963,
        fwdPackets: 22,
        bwdPackets: 22,
        packets: 44,
        fwdPayloadBytes: 2591,
        endReason: 'flush',
      });
      const [f, ...rest] = d.observe([flow]);
      expect(rest).to.deep.equal([]);
      expect(f).to.deep.include({ severity: 'high', target: 'hsc.fr', count: 22 });
      expect(f!.details).to.deep.include({ signals: ['one_flow_many_queries', 'long_names', 'tunnel_qtypes'], queries: 22, meanQueryBytes: 117.77 });
    });

    it('short session: 12 NULL queries over one socket (iodine handshake) are a medium tunnel; 9 are not enough', () => {
      const iodine = (fwdPackets: number): FlowRecord =>
        lookup('yrb0pe.t1.biillpi.com', 10, 0, {
          srcPort: 40000,
          fwdPackets,
          bwdPackets: fwdPackets,
          packets: 2 * fwdPackets,
          fwdPayloadBytes: 67 * fwdPackets,
          endReason: 'flush',
        });
      expect(new DnsTunnelDetector(config(), 100).observe([iodine(9)])).to.deep.equal([]);
      const [f] = new DnsTunnelDetector(config(), 100).observe([iodine(12)]);
      expect(f).to.deep.include({ severity: 'medium', target: 'biillpi.com', count: 12 });
      expect(f!.details).to.deep.include({
        signals: ['short_session', 'tunnel_qtypes', 'null_qtype', 'one_flow'],
        queries: 12,
        uniqueNames: 1,
        maxQueriesPerFlow: 12,
        meanQueryBytes: 67,
        dataQtypeShare: 1,
        nullQtypeShare: 1,
        qtypes: { '10': 12 },
        examples: ['yrb0pe.t1.biillpi.com'],
      });
    });

    it('short session: 12 one-query MX/TXT flows with encoded names (dnscat2) are a medium tunnel, one CNAME among them', () => {
      const d = new DnsTunnelDetector(config(), 100);
      const flows = Array.from({ length: 12 }, (_, i) => lookup(`${hex(i, 34)}.biillpi.com`, i === 10 ? 5 : i % 2 === 0 ? 15 : 16, i));
      const [f, ...rest] = d.observe(flows);
      expect(rest).to.deep.equal([]);
      expect(f).to.deep.include({ severity: 'medium', target: 'biillpi.com', count: 12 });
      expect(f!.details).to.deep.include({
        signals: ['short_session', 'tunnel_qtypes', 'encoded_names'],
        queries: 12,
        uniqueNames: 12,
        meanNameLength: 34,
        dataQtypeShare: 0.92,
      });
      expect(f!.details['meanEntropy']).to.be.at.least(3.5);
    });

    it('short session: 14 long base64 TXT names (DNSExfiltrator) are high: encoded names and long queries', () => {
      const d = new DnsTunnelDetector(config(), 100);
      const b64 = (i: number): string => createHash('sha512').update(String(i)).digest('base64url').slice(0, 62);
      const flows = Array.from({ length: 14 }, (_, i) => lookup(`${i}.${b64(i)}.${b64(i + 100)}.${b64(i + 200)}.hsc.fr`, 16, i));
      const [f] = d.observe(flows);
      expect(f).to.deep.include({ severity: 'high', target: 'hsc.fr', count: 14 });
      expect(f!.details['signals']).to.deep.equal(['short_session', 'tunnel_qtypes', 'encoded_names', 'long_names']);
      expect(f!.details['examples']).to.have.length(3);
    });

    it('short session guard: CNAME and A queries with encoded names (CDNs, DNSBLs) are no short session', () => {
      const d = new DnsTunnelDetector(config(), 100);
      const flows = [
        ...Array.from({ length: 15 }, (_, i) => lookup(`${hex(i, 40)}.cdn.example.net`, 5, i)),
        ...Array.from({ length: 15 }, (_, i) => lookup(`${i}.${i + 1}.113.203.zen.spamhaus.org`, 1, i)),
      ];
      expect(d.observe(flows)).to.deep.equal([]);
    });

    it('short session guard: DNS-SD and mDNS TXT/PTR/SRV names never count, on port 53 or 5353', () => {
      const d = new DnsTunnelDetector(config(), 100);
      const flows = [
        ...Array.from({ length: 15 }, (_, i) => lookup(`Printer ${hex(i, 30)}._ipp._tcp.example.com`, 16, i)),
        ...Array.from({ length: 15 }, (_, i) => lookup(`${hex(i, 30)}._googlecast._tcp.local`, 16, i)),
        ...Array.from({ length: 15 }, (_, i) => lookup('_services._dns-sd._udp.local', i % 2 === 0 ? 12 : 16, i)),
        ...Array.from({ length: 15 }, (_, i) => lookup(`${hex(i, 30)}._airplay._tcp.local`, 16, i, { dstPort: 5353, dstIp: '224.0.0.251' })),
      ];
      expect(d.observe(flows)).to.deep.equal([]);
    });

    it('short session guard: SPF, DMARC and DKIM TXT lookups are mail housekeeping', () => {
      const d = new DnsTunnelDetector(config(), 100);
      const names = ['example.com', '_dmarc.example.com', 'google._domainkey.example.com', 'selector1._domainkey.example.com', '_mta-sts.example.com'];
      // Amazon SES style DKIM selectors are 32-character tokens: long, high-entropy names that are still housekeeping.
      const flows = [...names, ...names, ...Array.from({ length: 12 }, (_, i) => `${hex(i, 32)}._domainkey.example.com`)].map((name, i) => lookup(name, 16, i));
      expect(d.observe(flows)).to.deep.equal([]);
    });

    it('short session guard: a run of TXT lookups with short plain names is no tunnel', () => {
      const words = ['www', 'mail', 'api', 'cdn', 'static', 'login', 'auth', 'shop', 'blog', 'docs', 'status', 'news', 'vpn', 'ftp', 'img'];
      expect(new DnsTunnelDetector(config(), 100).observe(words.map((w, i) => lookup(`${w}.example.org`, 16, i)))).to.deep.equal([]);
      // Longer plain names (24 characters or more, but words: low entropy) neither.
      const long = words.map((w, i) => lookup(`${w}.${w}-eu-west-replica-${w}.example.org`, 16, i));
      expect(new DnsTunnelDetector(config(), 100).observe(long)).to.deep.equal([]);
    });

    it('never judges allowlisted domains, reverse lookups or other ports', () => {
      const d = new DnsTunnelDetector(config({ allow: ['example.com'] }), 100);
      const flows = [
        ...Array.from({ length: 40 }, (_, i) => lookup(`${hex(i)}.avqs.example.com`, 16, i)),
        ...Array.from({ length: 40 }, (_, i) => lookup(`${i}.${i}.168.192.in-addr.arpa`, 12, i)),
        ...Array.from({ length: 40 }, (_, i) => lookup(`${hex(i)}.local-peer.lan`, 16, i, { dstPort: 5353 })),
      ];
      expect(d.observe(flows)).to.deep.equal([]);
    });

    it('starts a new window after windowSec: names spread thinner than 30 per window are no tunnel', () => {
      const d = new DnsTunnelDetector(config({ windowSec: 600, ...volumeOnly }), 100);
      const out = [];
      for (let i = 0; i < 60; i++) out.push(...d.observe([lookup(`${hex(i)}.slow.example.org`, 16, i * 25)]));
      expect(out).to.deep.equal([]);
    });

    it('keeps at most maxTracked groups', () => {
      const d = new DnsTunnelDetector(config(volumeOnly), 10);
      d.observe(Array.from({ length: 29 }, (_, i) => lookup(`${hex(i)}.exfil.example.com`, 16, i)));
      d.observe(Array.from({ length: 20 }, (_, i) => lookup(`x.domain${i}.com`, 1, 30)));
      // The 29 names were forgotten with their group: one more makes no 30.
      expect(d.observe([lookup(`${hex(99)}.exfil.example.com`, 16, 31)])).to.deep.equal([]);
    });
  });
});
