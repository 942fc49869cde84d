/** src/net/cidr.ts: parsing and normalising addresses and prefixes as people type them. */
import { expect } from 'chai';
import { ValidationError } from '../../../src/errors.js';
import { parseAddress, tryParseAddress } from '../../../src/net/cidr.js';

describe('net/cidr', () => {
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

    const bad = [
      '',
      ' 1.2.3.4',
      '1.2.3.4 ',
      '1.2.3.4\n',
      '1.2.3.4;',
      '1.2.3.04.5',
      '1.2.3',
      '300.1.1.1',
      'fe80::1%eth0',
      '::ffff:1.2.3.4.5',
      '1.2.3.4/',
      '1.2.3.4/x',
      '1.2.3.4/7',
      '2001:db8::/15',
      '0.0.0.0',
      '::',
      '1:2:3:4:5:6:7:8:9',
      'a'.repeat(65),
    ];
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
});
