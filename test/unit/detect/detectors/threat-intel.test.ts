import { expect } from 'chai';
import { ThreatIntelDetector } from '../../../../src/detect/detectors/threat-intel.js';
import { ThreatIntelIndex } from '../../../../src/detect/threat-intel.js';
import { makeFlow } from '../flow-factory.js';

function detector(): ThreatIntelDetector {
  const index = new ThreatIntelIndex();
  index.addList('/lists/ips.txt', '203.0.113.0/24\n2001:db8:bad::/48');
  index.addList('/lists/domains.txt', 'evil.example');
  return new ThreatIntelDetector(index, 1000);
}

describe('detect/detectors/threat-intel: ThreatIntelDetector#observe()', () => {
  it('raises a high threat_intel finding for a flow to a listed prefix, naming the list and entry', () => {
    const [f, ...rest] = detector().observe([
      makeFlow({ srcIp: '192.168.1.10', dstIp: '203.0.113.9', dstPort: 443, firstSeenMs: 1000, lastSeenMs: 2000 }),
      makeFlow({ srcIp: '192.168.1.10', dstIp: '203.0.113.9', dstPort: 443, firstSeenMs: 3000, lastSeenMs: 4000 }),
      makeFlow({ srcIp: '192.168.1.10', dstIp: '198.51.100.1' }),
    ]);
    expect(rest).to.have.length(0);
    expect(f).to.deep.include({
      category: 'threat_intel',
      source: 'rule',
      severity: 'high',
      srcIp: '203.0.113.9',
      dstIp: '192.168.1.10',
      threatIp: '203.0.113.9',
      target: '192.168.1.10',
      count: 2,
      firstSeenMs: 1000,
      lastSeenMs: 4000,
      title: '192.168.1.10 contacted 203.0.113.9, listed in ips.txt',
    });
    expect(f!.details).to.deep.equal({
      detector: 'threat_intel',
      list: 'ips.txt',
      entry: '203.0.113.0/24',
      indicator: '203.0.113.9',
      field: 'dst_ip',
      direction: 'outbound',
      countUnit: 'flows',
    });
  });

  it('matches inbound traffic from a listed IPv6 prefix', () => {
    const [f] = detector().observe([makeFlow({ srcIp: '2001:db8:bad::66', dstIp: '2001:db8:1::5', ipVersion: 6, dstPort: 22 })]);
    expect(f).to.deep.include({ srcIp: '2001:db8:bad::66', dstIp: '2001:db8:1::5', title: 'Traffic from 2001:db8:bad::66, listed in ips.txt' });
    expect(f!.details).to.include({ direction: 'inbound', field: 'src_ip', entry: '2001:db8:bad::/48' });
  });

  it('matches names: TLS SNI, HTTP Host, the DNS question and the server name, subdomains included', () => {
    const d = detector();
    const flows = [
      makeFlow({ dstIp: '198.51.100.1', tls: { version: null, sni: 'cdn.evil.example', alpn: null, ja3: null, ja4: null, ja4s: null, cipher: null } }),
      makeFlow({ dstIp: '198.51.100.2', http: { method: 'GET', host: 'EVIL.example', uri: '/', userAgent: null, status: 200, requests: 1 } }),
      makeFlow({ dstIp: '198.51.100.3', dstPort: 53, protocol: 17, dns: { query: 'x1.evil.example', qtype: 16, rcode: 0, answers: [] } }),
      makeFlow({ dstIp: '198.51.100.4', serverName: 'api.evil.example', serverNameSource: 'dns' }),
      makeFlow({ dstIp: '198.51.100.5', serverName: 'notevil.example', serverNameSource: 'sni' }),
    ];
    const found = d.observe(flows);
    expect(found.map((f) => [f.srcIp, f.details['field'], f.details['indicator'], f.details['entry'], f.details['list']])).to.deep.equal([
      ['198.51.100.1', 'tls_sni', 'cdn.evil.example', 'evil.example', 'domains.txt'],
      ['198.51.100.2', 'http_host', 'evil.example', 'evil.example', 'domains.txt'],
      ['10.0.0.2', 'dns_query', 'x1.evil.example', 'evil.example', 'domains.txt'],
      ['198.51.100.4', 'server_name', 'api.evil.example', 'evil.example', 'domains.txt'],
    ]);
    expect(found[0]!.title).to.equal('10.0.0.2 contacted 198.51.100.1 (cdn.evil.example), listed in domains.txt');
    // A DNS question: the client is the host to look at, not the resolver.
    expect(found[2]).to.deep.include({
      threatIp: '10.0.0.2',
      dstIp: '198.51.100.3',
      target: 'dns:evil.example',
      title: '10.0.0.2 looked up x1.evil.example, listed in domains.txt',
    });
    expect(found[2]!.details).to.include({ direction: 'lookup' });
  });

  it('counts a flow once across its snapshots and its end, and again when a later session repeats it', () => {
    const d = detector();
    const snap = makeFlow({ id: 77, srcIp: '10.0.0.2', dstIp: '203.0.113.1', firstSeenMs: 5000, endReason: 'snapshot' });
    expect(d.observe([snap])).to.have.length(1);
    expect(d.observe([{ ...snap, lastSeenMs: 9000 }])).to.have.length(0);
    expect(d.observe([{ ...snap, endReason: 'fin', lastSeenMs: 9500 }])).to.have.length(0);
    // The same capture replayed: the same id and start, never snapshotted.
    expect(d.observe([{ ...snap, endReason: 'fin', lastSeenMs: 9500 }])).to.have.length(1);
    expect(d.observe([{ ...snap, endReason: 'fin', lastSeenMs: 9500 }])).to.have.length(1);
  });
});
