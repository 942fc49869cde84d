/**
 * Threat lists on a real capture: `sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap` (ordinary Windows browsing) replayed
 * through the real addon, sensor pipeline and detection engine, with a hosts file and a domain list written here that
 * name some of the capture's servers: the TLS SNI `mamzon.ru`, the parent domain `lencr.org` of the HTTP Host
 * `r3.o.lencr.org` (OCSP), and `bing.com`, reached over TLS as `www.bing.com`. Each is also asked for by DNS: those alerts name the client.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { tempDir } from '../../helpers/setup.js';
import { replayCapture } from './replay-helper.js';

const CAPTURE = 'sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap';

describe('detection: threat lists (VIGIL_INTEL_FILES) on a replayed browsing capture', function () {
  this.timeout(120_000);

  it('raises threat_intel for each listed name and field, saying which list and entry matched, and nothing for unlisted names', async () => {
    const dir = tempDir('intel-');
    const hosts = path.join(dir, 'hosts');
    const domains = path.join(dir, 'domains.txt');
    writeFileSync(hosts, '# a hosts-format blocklist\n127.0.0.1 localhost\n0.0.0.0 mamzon.ru\n');
    writeFileSync(domains, 'lencr.org\nbing.com\nnot a domain\n');
    const out = await replayCapture(CAPTURE, { env: { VIGIL_ML: 'false', VIGIL_INTEL_FILES: `${hosts},${domains}` } });
    const intel = out.alerts.filter((a) => a.category === 'threat_intel');
    const seen = new Set(
      intel.map((a) => {
        const d = JSON.parse(a.details) as Record<string, string>;
        return `${d['list']} ${d['entry']} ${d['field']}`;
      }),
    );
    expect([...seen].sort()).to.deep.equal([
      'domains.txt bing.com dns_query',
      'domains.txt bing.com tls_sni',
      'domains.txt lencr.org dns_query',
      'domains.txt lencr.org http_host',
      'hosts mamzon.ru dns_query',
      'hosts mamzon.ru tls_sni',
    ]);
    expect(intel.every((a) => a.severity === 'high' && a.source === 'rule')).to.equal(true);
    const contact = intel.find((a) => a.details.includes('mamzon.ru') && a.details.includes('tls_sni'))!;
    expect(contact.title).to.match(/^\S+ contacted \S+ \(mamzon\.ru\), listed in hosts$/);
    const lookup = intel.find((a) => a.details.includes('mamzon.ru') && a.details.includes('dns_query'))!;
    expect(lookup.title).to.equal(`${lookup.src_ip} looked up mamzon.ru, listed in hosts`);
    expect(JSON.parse(lookup.details)).to.include({ direction: 'lookup', indicator: 'mamzon.ru' });
    expect(out.engine.intel.lists.map((l) => [l.list, l.names, l.malformed])).to.deep.equal([
      ['hosts', 1, 0],
      ['domains.txt', 2, 1],
    ]);
  });
});
