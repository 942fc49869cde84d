import { expect } from 'chai';
import { ConflictError } from '../../../src/errors.js';
import { parseAddress } from '../../../src/net/cidr.js';
import {
  assertBlockable,
  parseProcNetIpv6Route,
  parseProcNetRoute,
  parseResolvConf,
  protectedReason,
  type ProtectedAddresses,
} from '../../../src/firewall/rules.js';

describe('firewall/rules', () => {
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
      expect(() => assertBlockable(parseAddress('192.0.2.1'), prot))
        .to.throw(ConflictError)
        .with.property('code', 'protected_gateway');
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
      expect(parseResolvConf('# c\nsearch lan\nnameserver 192.0.2.53\nnameserver fe80::1%eth0\n  nameserver 1.1.1.1\n')).to.deep.equal([
        '192.0.2.53',
        'fe80::1',
        '1.1.1.1',
      ]);
    });
  });
});
