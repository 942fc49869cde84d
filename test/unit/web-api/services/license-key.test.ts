import { expect } from 'chai';
import { generateLicenseKey, hashLicenseKey, LICENSE_KEY_RANDOM_BITS, normalizeLicenseKey } from '../../../../src/web-api/services/license-key.js';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

describe('license-key', () => {
  describe('generateLicenseKey()', () => {
    it('makes VIGIL-XXXXX-XXXXX-XXXXX-XXXXX-XXXXX keys of Crockford symbols with at least 100 random bits', () => {
      expect(LICENSE_KEY_RANDOM_BITS).to.be.at.least(100);
      const keys = new Set<string>();
      for (let i = 0; i < 200; i++) {
        const key = generateLicenseKey();
        expect(key).to.match(/^VIGIL(-[0-9ABCDEFGHJKMNPQRSTVWXYZ]{5}){5}$/);
        expect(normalizeLicenseKey(key)).to.equal(key);
        keys.add(key);
      }
      expect(keys.size).to.equal(200);
    });
  });

  describe('normalizeLicenseKey()', () => {
    it('reads keys the Crockford way: any case, without hyphens or prefix, O as 0 and I/L as 1', () => {
      const key = generateLicenseKey();
      expect(normalizeLicenseKey(key.toLowerCase())).to.equal(key);
      expect(normalizeLicenseKey(key.replace(/-/g, ''))).to.equal(key);
      expect(normalizeLicenseKey(` ${key.slice('VIGIL-'.length)} `)).to.equal(key);
      const ambiguous = key.slice(0, 6) + key.slice(6).replace(/0/g, 'O').replace(/1/g, 'l');
      expect(normalizeLicenseKey(ambiguous)).to.equal(key);
    });

    it('rejects every single-symbol typo and every adjacent swap of a key', () => {
      for (let round = 0; round < 5; round++) {
        const key = generateLicenseKey();
        const symbols = key.slice('VIGIL-'.length).replace(/-/g, '');
        for (let i = 0; i < symbols.length; i++) {
          for (const replacement of ALPHABET) {
            if (replacement === symbols[i]) continue;
            const typo = symbols.slice(0, i) + replacement + symbols.slice(i + 1);
            expect(normalizeLicenseKey(typo), `typo at ${i}: ${typo}`).to.equal(null);
          }
          if (i + 1 < symbols.length - 2 && symbols[i] !== symbols[i + 1]) {
            const swapped = symbols.slice(0, i) + symbols[i + 1] + symbols[i] + symbols.slice(i + 2);
            expect(normalizeLicenseKey(swapped), `swap at ${i}`).to.equal(null);
          }
        }
      }
    });

    it('rejects wrong lengths, foreign symbols and other prefixes', () => {
      const key = generateLicenseKey();
      expect(normalizeLicenseKey('')).to.equal(null);
      expect(normalizeLicenseKey(key.slice(0, -1))).to.equal(null);
      expect(normalizeLicenseKey(`${key}Z`)).to.equal(null);
      expect(normalizeLicenseKey(key.replace(/-([^-]*)$/, '-U$1').slice(0, key.length))).to.equal(null);
      expect(normalizeLicenseKey(key.replace('VIGIL', 'OTHER'))).to.equal(null);
    });
  });

  describe('hashLicenseKey()', () => {
    it('is a hex SHA-256 that does not contain the key', () => {
      const key = generateLicenseKey();
      const hash = hashLicenseKey(key);
      expect(hash).to.match(/^[0-9a-f]{64}$/);
      expect(hash).to.equal(hashLicenseKey(key));
      expect(hash).not.to.equal(hashLicenseKey(generateLicenseKey()));
    });
  });
});
