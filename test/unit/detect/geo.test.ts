import { expect } from 'chai';
import { createGeoLocator, GEO_ATTRIBUTION } from '../../../src/detect/geo.js';
import { isGlobalAddress } from '../../../src/net/classify.js';

describe('detect/geo', function () {
  this.timeout(60_000);
  const geo = createGeoLocator();

  it('locates public IPv4 and IPv6 addresses offline (country and coordinates)', async () => {
    for (const [ip, cc] of [
      ['64.13.134.52', 'US'],
      ['8.8.8.8', 'US'],
      ['2001:4860:4860::8888', null],
    ] as const) {
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
    const ips = [
      '10.1.2.3',
      '172.16.0.8',
      '192.168.56.1',
      '127.0.0.1',
      '169.254.10.1',
      '100.64.0.1',
      '::1',
      'fe80::1',
      'fd00::5',
      'ff02::1',
      '224.0.0.251',
      '0.0.0.0',
      '255.255.255.255',
      '2001:db8::1',
      'not-an-ip',
    ];
    for (const ip of [...ips, ...ips]) {
      // the second round is answered from the locator's cache
      expect(await geo.lookup(ip), ip).to.equal(null);
      expect(isGlobalAddress(ip), ip).to.equal(false);
    }
    expect(isGlobalAddress('8.8.8.8')).to.equal(true);
    expect(isGlobalAddress('2001:4860:4860::8888')).to.equal(true);
  });

  it('reads the databases from their files on demand: locating both families holds under 8 MB, not the 134 MB files', async () => {
    const fresh = createGeoLocator();
    // Buffers and other memory outside the V8 heap (what maxmind's whole-file Buffers were counted in).
    const held = (): number => process.memoryUsage().external;
    const before = held();
    expect((await fresh.lookup('64.13.134.52'))!.countryCode).to.equal('US');
    expect((await fresh.lookup('2001:4860:4860::8888'))!.countryCode).to.match(/^[A-Z]{2}$/);
    for (let i = 1; i < 200; i++) await fresh.lookup(`${(i % 200) + 11}.${(i * 37) % 256}.${(i * 101) % 256}.7`);
    // Regression: maxmind.open() read each file into one Buffer (63 MB IPv4, 71 MB IPv6) kept for the process's life.
    expect(held() - before).to.be.below(8 * 1024 * 1024);
  });

  it('exports the DB-IP credit its licence requires', () => {
    expect(GEO_ATTRIBUTION.text).to.equal('IP Geolocation by DB-IP');
    expect(GEO_ATTRIBUTION.url).to.equal('https://db-ip.com');
  });
});
