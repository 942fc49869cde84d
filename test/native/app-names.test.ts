/**
 * Names learned from DNS reach later flows: every flow whose server name came from DNS (`serverNameSource: 'dns'`)
 * goes to an address that an earlier DNS answer, to the same client (or, for mDNS, to anyone), gave for that name, in
 * the same replay; and the off switch leaves the table empty. Real captures through the whole core.
 */
import { expect } from 'chai';
import path from 'node:path';
import { replayFile } from '../../src/native/capture.js';
import type { FlowRecord } from '../../src/native/types.js';
import { FIXTURES } from '../helpers/setup.js';

const MIXED = path.join(FIXTURES, 'pcaps', 'sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap');

describe('native: names from DNS answers on later flows', function () {
  this.timeout(60_000);

  it('names a flow by the answer its client received before it started', async () => {
    const { flows, stats } = await replayFile(MIXED);
    const answers: Array<{ client: string; name: string; address: string; atMs: number }> = [];
    for (const f of flows) {
      if (f.dns == null || f.dns.rcode === null) continue;
      for (const a of f.dns.answers) {
        if (a.type === 'A' || a.type === 'AAAA') answers.push({ client: f.srcIp, name: f.dns.query, address: a.value, atMs: f.firstSeenMs });
      }
    }
    const named = flows.filter((f: FlowRecord) => f.serverNameSource === 'dns');
    expect(named.length).to.be.at.least(5);
    for (const f of named) {
      const source = answers.find((a) => a.client === f.srcIp && a.address === f.dstIp && a.name === f.serverName && a.atMs <= f.firstSeenMs);
      expect(source, `${f.srcIp} -> ${f.dstIp} named ${f.serverName}`).to.not.equal(undefined);
    }
    expect(named.map((f) => f.serverName)).to.include('mamzon.ru');
    // Flows whose SNI or Host named them found their DNS name too (the handshake's name wins): hits >= DNS-named.
    expect(stats.appLayer!.dnsCache.hits).to.be.at.least(named.length);
    expect(stats.appLayer!.dnsCache.inserts).to.be.greaterThan(0);
  });

  it('learns nothing with the application layer off', async () => {
    const { flows, stats } = await replayFile(MIXED, { appLayer: false });
    expect(flows.filter((f) => f.serverName != null)).to.deep.equal([]);
    expect(stats.appLayer!.dnsCache).to.deep.equal({ inserts: 0, hits: 0, misses: 0, evictions: 0 });
  });
});
