/** src/net/classify.ts: threats (hosts), global, loopback, private and local addresses. */
import { BlockList, isIP } from 'node:net';
import { expect } from 'chai';
import { leastSampledAllocation } from '../../helpers/allocation.js';
import { isGlobalAddress, isLoopback, isPrivate, isThreatAddress, localAddressClassifier, machineAddresses } from '../../../src/net/classify.js';

describe('net/classify: isThreatAddress()', () => {
  it('accepts valid IPv4 and IPv6 addresses other than the unspecified ones', () => {
    for (const ip of [
      '1.2.3.4',
      '8.8.8.8',
      '10.0.0.1',
      '255.255.255.255',
      '0.0.0.1',
      '1.0.0.0',
      '2001:db8::1',
      'fe80::1',
      '::1',
      '::ffff:8.8.4.4',
      'fe80::1%eth0',
    ]) {
      expect(isThreatAddress(ip), ip).to.equal(true);
    }
  });

  it('refuses the unspecified addresses in every spelling, and text that is no address', () => {
    for (const ip of [
      '0.0.0.0',
      '::',
      '::0',
      '0:0:0:0:0:0:0:0',
      '0::0',
      '::0.0.0.0',
      '::ffff:0.0.0.0',
      '::ffff:0:0',
      '::%eth0',
      '',
      'not-an-ip',
      '00.0.0.0',
      '0.0.0.00',
      '01.2.3.4',
      '1.2.3',
      '0.0.0.0.0',
      ' 1.2.3.4',
      '1.2.3.4 ',
      '0.0.0.0/0',
      '256.1.1.1',
    ]) {
      expect(isThreatAddress(ip), JSON.stringify(ip)).to.equal(false);
    }
  });

  // Regression guard for the IPv4 shortcut (no BlockList for IPv4): the same answers as the BlockList check it replaced.
  it('answers as a BlockList of 0.0.0.0 and :: does, for IPv4 texts with and without leading zeros', () => {
    const unspecified = new BlockList();
    unspecified.addAddress('0.0.0.0', 'ipv4');
    unspecified.addAddress('::', 'ipv6');
    const reference = (ip: string): boolean => {
      const family = isIP(ip);
      return family !== 0 && !unspecified.check(ip, family === 4 ? 'ipv4' : 'ipv6');
    };
    const octets = ['0', '00', '000', '1', '01', '9', '10', '99', '100', '199', '200', '249', '250', '255', '256', '1000'];
    let checked = 0;
    for (const a of octets)
      for (const b of ['0', '00', '1', '255'])
        for (const c of ['0', '1', '010'])
          for (const d of octets) {
            const ip = `${a}.${b}.${c}.${d}`;
            expect(isThreatAddress(ip), ip).to.equal(reference(ip));
            checked++;
          }
    expect(checked).to.equal(16 * 4 * 3 * 16);
  });
});

describe('net/classify: isGlobalAddress()', () => {
  it('answers IPv4 addresses (plain and ::ffff:-mapped) as a BlockList of the non-global networks does', () => {
    const nets: Array<[string, number]> = [
      ['0.0.0.0', 8],
      ['10.0.0.0', 8],
      ['100.64.0.0', 10],
      ['127.0.0.0', 8],
      ['169.254.0.0', 16],
      ['172.16.0.0', 12],
      ['192.0.0.0', 24],
      ['192.0.2.0', 24],
      ['192.168.0.0', 16],
      ['198.18.0.0', 15],
      ['198.51.100.0', 24],
      ['203.0.113.0', 24],
      ['224.0.0.0', 4],
      ['240.0.0.0', 4],
    ];
    const list = new BlockList();
    for (const [net, prefix] of nets) list.addSubnet(net, prefix, 'ipv4');
    for (const [net, prefix] of [
      ['::', 128],
      ['::1', 128],
      ['fc00::', 7],
      ['fe80::', 10],
      ['ff00::', 8],
      ['2001:db8::', 32],
      ['100::', 64],
    ] as const)
      list.addSubnet(net, prefix, 'ipv6');
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
});

describe('net/classify: isLoopback() / isPrivate() / localAddressClassifier()', () => {
  it('isLoopback(): 127.0.0.0/8 and ::1, mapped or not', () => {
    for (const ip of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) expect(isLoopback(ip), ip).to.equal(true);
    for (const ip of ['128.0.0.1', '10.0.0.1', '::2', '127.example', '']) expect(isLoopback(ip), ip).to.equal(false);
  });

  it('isPrivate(): RFC 1918, loopback, link-local and CGNAT; ULA, link-local and loopback', () => {
    for (const ip of [
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '127.0.0.1',
      '169.254.1.1',
      '100.64.0.1',
      '100.127.255.255',
      '::ffff:10.0.0.1',
      '::1',
      'fd00::1',
      'fc00::1',
      'fe80::1%eth0',
      'FEBF::1',
    ]) {
      expect(isPrivate(ip), ip).to.equal(true);
    }
    for (const ip of ['8.8.8.8', '172.15.0.1', '172.32.0.1', '100.128.0.1', '2001:db8::1', 'fec0::1', 'not-an-ip']) expect(isPrivate(ip), ip).to.equal(false);
  });

  it('isPrivate(): every IPv4 /16, plain and IPv4-mapped, as the ranges say', () => {
    const inRanges = (a: number, b: number): boolean =>
      a === 10 || a === 127 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127);
    for (let a = 0; a < 256; a++) {
      for (let b = 0; b < 256; b++) {
        const ip = `${a}.${b}.${(a * 7) % 256}.${b % 251}`;
        if (isPrivate(ip) !== inRanges(a, b) || isPrivate(`::ffff:${ip}`) !== inRanges(a, b)) expect.fail(`isPrivate(${ip})`);
      }
    }
  });

  it('isPrivate() and localAddressClassifier() allocate at most 8 bytes per dotted quad (a split per address: ~100)', async () => {
    const local = localAddressClassifier(['203.0.113.7']);
    const ips = Array.from({ length: 200 }, (_, i) => `${(i * 53) % 256}.${i}.${(i * 7) % 256}.1`);
    let privates = 0;
    const ask = (): void => {
      for (let n = 0; n < 500; n++) for (const ip of ips) if (local(ip)) privates++;
    };
    ask();
    const bytes = await leastSampledAllocation(ask);
    expect(privates).to.be.above(0);
    expect(bytes / 100_000).to.be.below(8);
  });

  it("localAddressClassifier(): this machine's addresses (normalised) and private ones", () => {
    const local = localAddressClassifier(['203.0.113.7', 'FE80::AB%eth0', '2001:db8::7']);
    for (const ip of ['203.0.113.7', '::ffff:203.0.113.7', 'fe80::ab', '2001:db8::7', '10.0.0.1']) expect(local(ip), ip).to.equal(true);
    for (const ip of ['203.0.113.8', '2001:db8::8', '8.8.8.8']) expect(local(ip), ip).to.equal(false);
    expect(machineAddresses()).to.include('127.0.0.1');
  });
});
