/** The one definition of characters that must not reach a terminal: what it finds and how it names them. */
import { expect } from 'chai';
import { codePointName, findUnsafeChar } from '../../../src/domain/control-chars.js';

describe('findUnsafeChar()', () => {
  it('finds each kind with its code point and 1-based position in code points', () => {
    const cases: Array<[string, number]> = [
      ['\u0000', 0x00],
      ['\u0007', 0x07],
      ['\t', 0x09],
      ['\n', 0x0a],
      ['\r', 0x0d],
      ['\u001b', 0x1b],
      ['\u007f', 0x7f],
      ['\u0080', 0x80],
      ['\u009b', 0x9b],
      ['\u009f', 0x9f],
      ['\u202a', 0x202a],
      ['\u202e', 0x202e],
      ['\u2066', 0x2066],
      ['\u2069', 0x2069],
    ];
    for (const [ch, codePoint] of cases) expect(findUnsafeChar(`🚫x${ch}y`), codePointName(codePoint)).to.deep.equal({ codePoint, position: 3 });
  });

  it('finds nothing in printable text, the characters next to the ranges included', () => {
    for (const s of ['', ' ~', '\u00a0\u00ff', '\u2029\u202f\u2065\u206a', 'Überprüfung 🚫 日本語'])
      expect(findUnsafeChar(s), JSON.stringify(s)).to.equal(null);
  });
});

describe('codePointName()', () => {
  it('writes U+ and at least four upper-case hex digits', () => {
    expect([0x1b, 0x202e, 0x1f6ab].map(codePointName)).to.deep.equal(['U+001B', 'U+202E', 'U+1F6AB']);
  });
});
