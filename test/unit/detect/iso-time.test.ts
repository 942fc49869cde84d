import { expect } from 'chai';
import { isoFromMs } from '../../../src/detect/iso-time.js';

/** What Date gives, or the error it throws. */
function viaDate(ms: number): string {
  try {
    return new Date(ms).toISOString();
  } catch (err) {
    return `throws ${(err as Error).name}`;
  }
}
function viaIso(ms: number): string {
  try {
    return isoFromMs(ms);
  } catch (err) {
    return `throws ${(err as Error).name}`;
  }
}

describe('detect/iso-time: isoFromMs()', () => {
  it('formats every kind of time as Date#toISOString does', () => {
    const edges = [
      0,
      -0,
      1,
      -1,
      999,
      1000,
      59_999,
      60_000,
      3_599_999,
      3_600_000,
      86_399_999,
      86_400_000,
      -86_400_000,
      -86_400_001,
      951_782_400_000, // 2000-02-29
      1_714_557_600_000.7, // fractional: truncated
      -1.5, // fractional before 1970: truncated towards zero
      -62_167_219_200_000, // 0000-01-01T00:00:00.000Z
      -62_167_219_200_001, // -000001-12-31T23:59:59.999Z
      253_402_300_799_999, // 9999-12-31T23:59:59.999Z
      253_402_300_800_000, // +010000-01-01T00:00:00.000Z
      8.64e15,
      -8.64e15,
      8.64e15 + 1,
      Number.NaN,
      Infinity,
      -Infinity,
    ];
    for (const ms of edges) expect(viaIso(ms), String(ms)).to.equal(viaDate(ms));
    expect(isoFromMs(1_714_557_600_000.7)).to.equal('2024-05-01T10:00:00.000Z');
    expect(viaIso(Number.NaN)).to.equal('throws RangeError');
  });

  it('agrees with Date on every day of years 0 to 2400 (leap years and centuries)', () => {
    const first = Date.parse('0000-01-01T00:00:00.000Z');
    const last = Date.parse('2400-12-31T00:00:00.000Z');
    let mismatches = 0;
    for (let ms = first, k = 0; ms <= last; ms += 86_400_000, k++) {
      const t = ms + (k % 3 === 0 ? 0 : k % 3 === 1 ? 86_399_999 : 45_296_789);
      if (isoFromMs(t) !== new Date(t).toISOString()) mismatches++;
    }
    expect(mismatches).to.equal(0);
    expect(isoFromMs(Date.parse('0999-12-31T23:59:59.999Z'))).to.equal('0999-12-31T23:59:59.999Z');
    expect(isoFromMs(Date.parse('2000-02-29T12:00:00.000Z'))).to.equal('2000-02-29T12:00:00.000Z');
  });

  it('agrees with Date on 200,000 random times', () => {
    let seed = 12345;
    const next = (): number => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return seed / 2 ** 32;
    };
    for (let i = 0; i < 200_000; i++) {
      // Mostly near "now" (a capture's times), some anywhere Date can hold, some fractional.
      const r = next();
      const ms = r < 0.6 ? 1.7e12 + (next() - 0.5) * 4e9 : r < 0.9 ? (next() - 0.5) * 2 * 8.64e15 : (next() - 0.5) * 1e13 + next();
      const got = viaIso(ms);
      if (got !== viaDate(ms)) expect(got, String(ms)).to.equal(viaDate(ms));
    }
  });
});
