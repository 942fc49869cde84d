/**
 * Replays every decoder regression input in test/fixtures/regressions/ (fuzz-format files, see its README) and
 * checks the status recorded for it in expected.json. Every file must have an expectation and vice versa.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { loadBinding } from '../../src/native/load.js';
import { FIXTURES } from '../helpers/setup.js';

const DIR = path.join(FIXTURES, 'regressions');
const expected = JSON.parse(readFileSync(path.join(DIR, 'expected.json'), 'utf8')) as Record<string, string>;
const inputs = readdirSync(DIR)
  // `<target>-*.bin` files belong to another fuzz target (scripts/fuzz.sh replays them there), not to the decoder.
  .filter((f) => f.endsWith('.bin') && !f.startsWith('fuzz_'))
  .sort();

describe('DecodePacket() regression inputs', () => {
  it('has an expected status for every input and an input for every expectation', () => {
    expect(inputs).to.have.length.greaterThan(0);
    expect(inputs).to.deep.equal(Object.keys(expected).sort());
  });

  for (const file of inputs) {
    it(`${file} -> ${expected[file]}`, () => {
      const bytes = readFileSync(path.join(DIR, file));
      const linkType = bytes.readUInt16BE(0);
      const frame = bytes.subarray(4);
      const v = loadBinding()._decodePacket(linkType, frame, frame.length + bytes.readUInt16BE(2));
      expect(v.status).to.equal(expected[file]);
      expect(v.caplen).to.equal(frame.length);
    });
  }
});
