import { expect } from 'chai';
import { boundedMemo } from '../../../src/net/memo.js';

describe('boundedMemo()', () => {
  it('computes each input once, remembers null answers, and starts over past its bound', () => {
    const calls: string[] = [];
    const memo = boundedMemo((k: string) => {
      calls.push(k);
      return k === 'none' ? null : k.length;
    }, 2);
    expect([memo('ab'), memo('ab'), memo('none'), memo('none')]).to.deep.equal([2, 2, null, null]);
    expect(calls).to.deep.equal(['ab', 'none']);
    expect(memo('xyz')).to.equal(3); // third distinct input: the table is emptied first
    expect(memo('ab')).to.equal(2);
    expect(calls).to.deep.equal(['ab', 'none', 'xyz', 'ab']);
  });
});
