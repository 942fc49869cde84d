/** terminalText / terminalLines / terminalJson: stored or captured text never reaches the terminal raw. */
import { expect } from 'chai';
import { terminalJson, terminalLines, terminalText } from '../../../src/cli/terminal-text.js';

/** Any C0 control, DEL, C1 or bidirectional control left in printed text. */
const RAW = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('terminalText()', () => {
  it('shows ESC, BEL, CR, NUL, tab, LF and DEL as \\xNN escapes', () => {
    expect(terminalText('a\u001b[2Jb\u0007c\rd\u0000e\tf\ng\u007f')).to.equal('a\\x1b[2Jb\\x07c\\x0dd\\x00e\\x09f\\x0ag\\x7f');
  });

  it('shows C1 controls as \\xNN and bidirectional controls as \\uNNNN', () => {
    expect(terminalText('\u009b31m \u0085')).to.equal('\\x9b31m \\x85');
    expect(terminalText('abc\u202edcba\u2066x\u2069\u202a\u202c')).to.equal('abc\\u202edcba\\u2066x\\u2069\\u202a\\u202c');
  });

  it('leaves printable text alone, non-ASCII included', () => {
    for (const s of ['203.0.113.7 blocked: brute force', 'Überprüfung – ssh 🚫', '日本語', 'back\\slash', '']) expect(terminalText(s)).to.equal(s);
  });

  it('a terminal title sequence prints as one visible line', () => {
    const out = terminalText('\u001b]0;owned\u0007\r\n10.0.0.1  fake row');
    expect(out).to.equal('\\x1b]0;owned\\x07\\x0d\\x0a10.0.0.1  fake row');
    expect(out).to.not.match(RAW);
  });
});

describe('terminalLines()', () => {
  it('keeps line feeds and escapes everything else', () => {
    expect(terminalLines('first\u001b[31m\nsecond\r')).to.equal('first\\x1b[31m\nsecond\\x0d');
  });
});

describe('terminalJson()', () => {
  it('escapes DEL, C1 and bidirectional controls that JSON.stringify leaves raw, and parses back to the same value', () => {
    const value = { reason: 'a\u001b\u0007\r\u0000\u007f\u009b\u202e\u2066z', n: 1 };
    const text = terminalJson(value);
    expect(text).to.equal('{"reason":"a\\u001b\\u0007\\r\\u0000\\u007f\\u009b\\u202e\\u2066z","n":1}');
    expect(text).to.not.match(RAW);
    expect(JSON.parse(text)).to.deep.equal(value);
  });
});
