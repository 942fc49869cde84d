import { expect } from 'chai';
import { ConflictError, ValidationError } from '../../../src/errors.js';
import {
  assertBlockable,
  formatIpv6,
  parseAddress,
  parseProcNetIpv6Route,
  parseProcNetRoute,
  parseResolvConf,
  protectedReason,
  tryParseAddress,
  type ProtectedAddresses,
} from '../../../src/firewall/rules.js';

describe('firewall/rules', () => {
  describe('parseAddress()', () => {
    const cases: Array<[string, string, 4 | 6]> = [
      ['1.2.3.4', '1.2.3.4', 4],
      ['::ffff:1.2.3.4', '1.2.3.4', 4],
      ['::FFFF:0102:0304', '1.2.3.4', 4],
      ['0:0:0:0:0:ffff:10.0.0.1', '10.0.0.1', 4],
      ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1', 6],
      ['2001:DB8::1', '2001:db8::1', 6],
      ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1', 6],
      ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1', 6],
      ['fe80::', 'fe80::', 6],
      ['::2', '::2', 6],
      ['64:ff9b::192.0.2.33', '64:ff9b::c000:221', 6],
      ['10.9.8.7/8', '10.0.0.0/8', 4],
      ['1.2.3.4/32', '1.2.3.4', 4],
      ['2001:db8::1/128', '2001:db8::1', 6],
      ['2001:db8:abcd::/48', '2001:db8:abcd::/48', 6],
      ['::ffff:10.1.0.0/112', '10.1.0.0/16', 4],
    ];
    for (const [input, key, family] of cases) {
      it(`normalises ${input} to ${key}`, () => {
        const p = parseAddress(input);
        expect(p.key).to.equal(key);
        expect(p.family).to.equal(family);
      });
    }

    it('computes the numeric range of a prefix', () => {
      const p = parseAddress('192.168.4.0/22');
      expect(p.prefix).to.equal(22);
      expect(p.first).to.equal(0xc0a80400n);
      expect(p.last).to.equal(0xc0a807ffn);
    });

    const bad = ['', ' 1.2.3.4', '1.2.3.4 ', '1.2.3.4\n', '1.2.3.4;', '1.2.3.04.5', '1.2.3', '300.1.1.1', 'fe80::1%eth0', '::ffff:1.2.3.4.5', '1.2.3.4/', '1.2.3.4/x', '1.2.3.4/7', '2001:db8::/15', '0.0.0.0', '::', '1:2:3:4:5:6:7:8:9', 'a'.repeat(65)];
    for (const input of bad) {
      it(`rejects ${JSON.stringify(input)} with a 400 invalid_ip naming the field`, () => {
        let caught: unknown;
        try {
          parseAddress(input);
        } catch (err) {
          caught = err;
        }
        expect(caught).to.be.instanceOf(ValidationError);
        const v = caught as ValidationError;
        expect(v.code).to.equal('invalid_ip');
        expect(v.errors[0].path).to.equal('ip');
      });
    }

    it('rejects non-strings (tryParseAddress returns null)', () => {
      expect(() => parseAddress(16909060)).to.throw(ValidationError);
      expect(tryParseAddress(null)).to.equal(null);
      expect(tryParseAddress('1.2.3.4')?.key).to.equal('1.2.3.4');
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

  describe('protectedReason() / assertBlockable()', () => {
    const prot: ProtectedAddresses = { self: ['192.0.2.10', 'fe80::1'], gateways: ['192.0.2.1'], dns: ['2001:db8::53'], allowlist: ['198.51.100.0/24'] };
    const cases: Array<[string, string | null, string | null]> = [
      ['127.0.0.53', null, 'loopback'],
      ['::1', null, 'loopback'],
      ['192.0.2.10', null, 'self'],
      ['fe80::1', null, 'self'],
      ['192.0.2.1', null, 'gateway'],
      ['2001:db8::53', null, 'dns'],
      ['203.0.113.5', '203.0.113.5', 'client'],
      ['203.0.113.0/24', '203.0.113.5', 'client'],
      ['198.51.100.200', null, 'allowlist'],
      ['198.51.0.0/16', null, 'allowlist'],
      ['203.0.113.5', '203.0.113.6', null],
      ['10.0.0.1', null, null],
    ];
    for (const [ip, client, reason] of cases) {
      it(`${ip}${client ? ` (client ${client})` : ''} -> ${reason ?? 'blockable'}`, () => {
        expect(protectedReason(parseAddress(ip), prot, client)).to.equal(reason);
      });
    }

    it('throws a 409 ConflictError with code protected_<reason>', () => {
      expect(() => assertBlockable(parseAddress('192.0.2.1'), prot)).to.throw(ConflictError).with.property('code', 'protected_gateway');
      expect(() => assertBlockable(parseAddress('10.0.0.1'), prot)).to.not.throw();
    });
  });

  describe('OS parsers', () => {
    it('parseProcNetRoute() reads little-endian gateways, default route first', () => {
      const text = [
        'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT',
        'eth0\t0000A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0',
        'eth1\t0010A8C0\tFE0AA8C0\t0003\t0\t0\t0\t00FFFFFF\t0\t0\t0',
        'eth0\t00000000\t0100A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0',
      ].join('\n');
      expect(parseProcNetRoute(text)).to.deep.equal(['192.168.0.1', '192.168.10.254']);
    });

    it('parseProcNetIpv6Route() reads next hops', () => {
      const text = [
        '00000000000000000000000000000000 00 00000000000000000000000000000000 00 fe800000000000000000000000000001 00000400 00000001 00000000 00000003     eth0',
        '20010db8000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0',
      ].join('\n');
      expect(parseProcNetIpv6Route(text)).to.deep.equal(['fe80::1']);
    });

    it('parseResolvConf() reads nameservers and strips zone ids', () => {
      expect(parseResolvConf('# c\nsearch lan\nnameserver 192.0.2.53\nnameserver fe80::1%eth0\n  nameserver 1.1.1.1\n')).to.deep.equal(['192.0.2.53', 'fe80::1', '1.1.1.1']);
    });
  });
});
