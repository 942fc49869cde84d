import { BlockList, isIP } from 'node:net';
import { expect } from 'chai';
import { isThreatAddress } from '../../../src/detect/threats.js';

describe('detect/threats: isThreatAddress()', () => {
  it('accepts valid IPv4 and IPv6 addresses other than the unspecified ones', () => {
    for (const ip of ['1.2.3.4', '8.8.8.8', '10.0.0.1', '255.255.255.255', '0.0.0.1', '1.0.0.0', '2001:db8::1', 'fe80::1', '::1', '::ffff:8.8.4.4', 'fe80::1%eth0']) {
      expect(isThreatAddress(ip), ip).to.equal(true);
    }
  });

  it('refuses the unspecified addresses in every spelling, and text that is no address', () => {
    for (const ip of ['0.0.0.0', '::', '::0', '0:0:0:0:0:0:0:0', '0::0', '::0.0.0.0', '::ffff:0.0.0.0', '::ffff:0:0', '::%eth0', '', 'not-an-ip', '00.0.0.0', '0.0.0.00', '01.2.3.4', '1.2.3', '0.0.0.0.0', ' 1.2.3.4', '1.2.3.4 ', '0.0.0.0/0', '256.1.1.1']) {
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
    for (const a of octets) for (const b of ['0', '00', '1', '255']) for (const c of ['0', '1', '010']) for (const d of octets) {
      const ip = `${a}.${b}.${c}.${d}`;
      expect(isThreatAddress(ip), ip).to.equal(reference(ip));
      checked++;
    }
    expect(checked).to.equal(16 * 4 * 3 * 16);
  });
});
