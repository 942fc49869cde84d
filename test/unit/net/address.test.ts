/** src/net/address.ts: 16-byte addresses and 128-bit numbers as text. */
import { expect } from 'chai';
import { isIPv4 } from 'node:net';
import { dottedQuadBits, formatAddress, formatIpv4, formatIpv6, ipv4Bits, normaliseIp, unmapIpv4, writeMappedIpv4 } from '../../../src/net/address.js';
import { seededRandom } from '../../helpers/random.js';

function addr(bytes: number[]): Uint8Array {
  return Uint8Array.from(bytes);
}

describe('formatAddress()', () => {
  it('prints IPv4-mapped addresses as dotted quads', () => {
    expect(formatAddress(addr([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 10, 50]))).to.equal('192.168.10.50');
  });

  it('prints IPv6 per RFC 5952: lower case, longest zero run as ::, first on ties, no :: for one zero word', () => {
    const v6 = (s: string): Uint8Array => {
      const words = s.split(':').map((w) => parseInt(w, 16));
      return addr(words.flatMap((w) => [w >> 8, w & 0xff]));
    };
    expect(formatAddress(v6('2001:db8:0:0:0:0:0:1'))).to.equal('2001:db8::1');
    expect(formatAddress(v6('fe80:0:0:0:31cb:26de:c5bb:c367'))).to.equal('fe80::31cb:26de:c5bb:c367');
    expect(formatAddress(v6('2001:db8:0:1:1:1:1:1'))).to.equal('2001:db8:0:1:1:1:1:1');
    expect(formatAddress(v6('2001:0:0:1:0:0:0:1'))).to.equal('2001:0:0:1::1');
    expect(formatAddress(v6('2001:db8:0:0:1:0:0:1'))).to.equal('2001:db8::1:0:0:1');
    expect(formatAddress(v6('0:0:0:0:0:0:0:1'))).to.equal('::1');
    expect(formatAddress(v6('0:0:0:0:0:0:0:0'))).to.equal('::');
    expect(formatAddress(v6('ff02:0:0:0:0:0:0:0'))).to.equal('ff02::');
  });

  it('matches a plain words-array formatter and the WHATWG URL serializer on every zero-word pattern and random addresses', () => {
    // Reference: the formatter as first written (an array of words, joined), obviously RFC 5952.
    const reference = (b: Uint8Array): string => {
      if (b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return Array.from(b.subarray(12)).join('.');
      const words = Array.from({ length: 8 }, (_, i) => ((b[2 * i] as number) << 8) | (b[2 * i + 1] as number));
      let best = [-1, 0];
      for (let i = 0; i < 8;) {
        let j = i;
        while (j < 8 && words[j] === 0) j++;
        if (j - i >= 2 && j - i > (best[1] as number)) best = [i, j - i];
        i = j === i ? i + 1 : j;
      }
      const hex = (ws: number[]): string => ws.map((w) => w.toString(16)).join(':');
      if ((best[0] as number) < 0) return hex(words);
      return `${hex(words.slice(0, best[0]))}::${hex(words.slice((best[0] as number) + (best[1] as number)))}`;
    };
    let seed = 12345;
    const rand = (k: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % k;
    };
    const word = (): number => [0, rand(16), rand(256), rand(4096), rand(65536)][rand(5)] as number;
    const cases: Uint8Array[] = [];
    for (let mask = 0; mask < 256; mask++) {
      for (let r = 0; r < 8; r++) {
        const ws = Array.from({ length: 8 }, (_, i) => ((mask >> i) & 1 ? Math.max(1, word()) : 0));
        cases.push(addr(ws.flatMap((w) => [w >> 8, w & 0xff])));
      }
    }
    for (let r = 0; r < 20000; r++) cases.push(addr(Array.from({ length: 8 }, word).flatMap((w) => [w >> 8, w & 0xff])));
    // IPv4-mapped, and addresses one byte away from it (which are not).
    for (let r = 0; r < 2000; r++) {
      const b = addr([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, rand(256), rand(256), rand(256), rand(256)]);
      cases.push(b);
      const near = b.slice();
      near[rand(12)] ^= 1 << rand(8);
      cases.push(near);
    }
    cases.push(addr([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0]), addr([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 255, 255, 255, 255]));
    let mapped = 0;
    for (const b of cases) {
      const text = formatAddress(b);
      expect(text, Array.from(b).join(',')).to.equal(reference(b));
      if (text.includes('.')) mapped++;
      else expect(`[${text}]`).to.equal(new URL(`http://[${text}]/`).hostname);
      // An offset into a larger buffer reads the same 16 bytes.
      const wide = new Uint8Array(40);
      wide.set(b, 17);
      expect(formatAddress(wide, 17)).to.equal(text);
    }
    expect(mapped).to.be.greaterThan(2000);
  });
});

describe('formatIpv6()', () => {
  it('compresses the longest zero run, the first one on ties, never a single group', () => {
    expect(formatIpv6(0x20010db8000000000001000000000001n)).to.equal('2001:db8::1:0:0:1');
    expect(formatIpv6(0x20010db8000000010000000000000001n)).to.equal('2001:db8:0:1::1');
    expect(formatIpv6(0x20010db8000100010001000100010001n)).to.equal('2001:db8:1:1:1:1:1:1');
    expect(formatIpv6(0x20010db8000000010001000100010001n)).to.equal('2001:db8:0:1:1:1:1:1');
    expect(formatIpv6(1n)).to.equal('::1');
  });
});

describe('formatIpv4() / ipv4Bits() / writeMappedIpv4()', () => {
  it('turn dotted quads into bits and bytes and back', () => {
    for (const ip of ['0.0.0.0', '1.2.3.4', '10.0.0.255', '192.168.10.50', '255.255.255.255']) {
      const bits = ipv4Bits(ip);
      expect(formatIpv4(bits), ip).to.equal(ip);
      expect(formatIpv4(bits | 0), ip).to.equal(ip); // signed 32-bit keys give the same text
      const b = new Uint8Array(20);
      writeMappedIpv4(b, 2, ip);
      expect(formatAddress(b, 2), ip).to.equal(ip);
    }
    expect(ipv4Bits('192.168.10.50')).to.equal(0xc0a80a32);
  });

  it('writeMappedIpv4() leaves the bytes alone for anything but a canonical dotted quad', () => {
    for (const ip of ['', '1.2.3', '1.2.3.4.5', '01.2.3.4', '1.2.3.256', '::1', 'fe80::1', 'a.b.c.d']) {
      const b = new Uint8Array(16);
      writeMappedIpv4(b, 0, ip);
      expect(Array.from(b), ip).to.deep.equal(new Array(16).fill(0));
    }
  });
});

describe('normaliseIp() / unmapIpv4()', () => {
  it('strips the IPv4-mapped prefix and zone ids and lowercases', () => {
    expect(normaliseIp('10.0.0.1')).to.equal('10.0.0.1');
    expect(normaliseIp('::ffff:10.0.0.1')).to.equal('10.0.0.1');
    expect(normaliseIp('::FFFF:10.0.0.1')).to.equal('10.0.0.1');
    expect(normaliseIp('FE80::1%eth0')).to.equal('fe80::1');
    expect(normaliseIp('::1')).to.equal('::1');
  });

  it('unmapIpv4() only unmaps, keeping case and zone ids of everything else', () => {
    expect(unmapIpv4('::ffff:8.8.8.8')).to.equal('8.8.8.8');
    expect(unmapIpv4('::FFFF:8.8.8.8')).to.equal('8.8.8.8');
    expect(unmapIpv4('FE80::1%eth0')).to.equal('FE80::1%eth0');
    expect(unmapIpv4('::ffff:8.8.8.8%eth0')).to.equal('::ffff:8.8.8.8%eth0');
  });
});

describe('dottedQuadBits()', () => {
  it("accepts exactly what node:net's isIPv4 accepts, giving ipv4Bits, else -1", () => {
    const cases = [
      '0.0.0.0',
      '255.255.255.255',
      '1.2.3.4',
      '10.0.0.1',
      '192.168.100.200',
      '01.2.3.4',
      '1.2.3.04',
      '1.2.3.256',
      '1.2.3',
      '1.2.3.4.5',
      '1..2.3',
      '.1.2.3',
      '1.2.3.',
      '',
      '1.2.3.4 ',
      ' 1.2.3.4',
      '1.2.3.-4',
      '1.2.3.a',
      '::ffff:1.2.3.4',
      '1000.2.3.4',
      '00.0.0.0',
      '0.0.0.00',
      '999.999.999.999',
      '1.2.3.4/24',
      '１.2.3.4',
    ];
    const rnd = seededRandom(7);
    const alphabet = '0123456789..a ';
    for (let i = 0; i < 20_000; i++) {
      let s = '';
      for (let n = rnd(16); n > 0; n--) s += alphabet[rnd(alphabet.length)];
      cases.push(s);
    }
    for (let i = 0; i < 5_000; i++) cases.push(`${rnd(300)}.${rnd(300)}.${rnd(300)}.${rnd(300)}`);
    let valid = 0;
    for (const s of cases) {
      const expected = isIPv4(s) ? ipv4Bits(s) : -1;
      if (expected >= 0) valid++;
      expect(dottedQuadBits(s), JSON.stringify(s)).to.equal(expected);
    }
    expect(valid).to.be.above(2_000); // both answers well exercised
  });
});
