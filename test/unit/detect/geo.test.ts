import { expect } from 'chai';
import { BlockList } from 'node:net';
import { createGeoLocator, GEO_ATTRIBUTION, isGlobalAddress } from '../../../src/detect/geo.js';

describe('detect/geo', function () {
  this.timeout(60_000);
  const geo = createGeoLocator();

  it('locates public IPv4 and IPv6 addresses offline (country and coordinates)', async () => {
    for (const [ip, cc] of [['64.13.134.52', 'US'], ['8.8.8.8', 'US'], ['2001:4860:4860::8888', null]] as const) {
      const loc = await geo.lookup(ip);
      expect(loc, ip).to.not.equal(null);
      expect(loc!.countryCode, ip).to.match(/^[A-Z]{2}$/);
      if (cc) expect(loc!.countryCode).to.equal(cc);
      expect(loc!.country, ip).to.be.a('string').and.not.equal('');
      expect(loc!.latitude, ip).to.be.within(-90, 90);
      expect(loc!.longitude, ip).to.be.within(-180, 180);
      expect(Math.abs(loc!.latitude) + Math.abs(loc!.longitude), ip).to.be.above(0);
    }
    expect((await geo.lookup('8.8.8.8'))!.country).to.equal('United States');
    expect(await geo.lookup('::ffff:8.8.8.8')).to.deep.equal(await geo.lookup('8.8.8.8'));
  });

  it('gives private, loopback, link-local, multicast and unspecified addresses no location', async () => {
    const ips = ['10.1.2.3', '172.16.0.8', '192.168.56.1', '127.0.0.1', '169.254.10.1', '100.64.0.1', '::1', 'fe80::1', 'fd00::5', 'ff02::1', '224.0.0.251', '0.0.0.0', '255.255.255.255', '2001:db8::1', 'not-an-ip'];
    for (const ip of [...ips, ...ips]) { // the second round is answered from the locator's cache
      expect(await geo.lookup(ip), ip).to.equal(null);
      expect(isGlobalAddress(ip), ip).to.equal(false);
    }
    expect(isGlobalAddress('8.8.8.8')).to.equal(true);
    expect(isGlobalAddress('2001:4860:4860::8888')).to.equal(true);
  });

  it('answers IPv4 addresses (plain and ::ffff:-mapped) as a BlockList of the non-global networks does', () => {
    const nets: Array<[string, number]> = [
      ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
      ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
      ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
    ];
    const list = new BlockList();
    for (const [net, prefix] of nets) list.addSubnet(net, prefix, 'ipv4');
    for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['100::', 64]] as const) list.addSubnet(net, prefix, 'ipv6');
    const text = (bits: number): string => [bits >>> 24, (bits >>> 16) & 255, (bits >>> 8) & 255, bits & 255].join('.');
    const bitsOf = (ip: string): number => ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);
    const addresses: string[] = ['0.0.0.0', '255.255.255.255', '8.8.8.8', '1.1.1.1'];
    for (const [net, prefix] of nets) {
      // Each network's first and last address and their neighbours outside it.
      const first = bitsOf(net);
      const last = first + 2 ** (32 - prefix) - 1;
      for (const b of [first - 1, first, first + 1, last - 1, last, last + 1]) if (b >= 0 && b < 2 ** 32) addresses.push(text(b));
    }
    let seed = 7;
    for (let i = 0; i < 50000; i++) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      addresses.push(text(seed));
    }
    let global = 0;
    for (const ip of addresses) {
      const expected = !list.check(ip, 'ipv4');
      expect(isGlobalAddress(ip), ip).to.equal(expected);
      expect(isGlobalAddress(`::ffff:${ip}`), `::ffff:${ip}`).to.equal(expected);
      if (expected) global++;
    }
    expect(global).to.be.within(30000, 49000);
  });

  it('exports the DB-IP credit its licence requires', () => {
    expect(GEO_ATTRIBUTION.text).to.equal('IP Geolocation by DB-IP');
    expect(GEO_ATTRIBUTION.url).to.equal('https://db-ip.com');
  });
});
