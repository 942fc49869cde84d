/** src/detect/detectors/pair-counts.ts: counts per (id, service) against a Map kept alongside. */
import { expect } from 'chai';
import { seededRandom } from '../../../helpers/random.js';
import { PairCounts } from '../../../../src/detect/detectors/pair-counts.js';

describe('detect/detectors/pair-counts: PairCounts', () => {
  it('counts, drops pairs at 0, and grows and shrinks as a Map of the same pairs does', () => {
    const rnd = seededRandom(4242);
    for (let run = 0; run < 20; run++) {
      const counts = new PairCounts();
      const ref = new Map<string, { id: number; service: number; n: number; at: number }>();
      // The held pairs in an array too, to pick one at random.
      const held: Array<{ id: number; service: number; n: number; at: number }> = [];
      // Few ids and services in some runs (pairs come back often), many in others (the table grows past 64 K slots).
      const ids = run % 2 === 0 ? 50 : 40_000;
      const services = run % 3 === 0 ? 3 : 0x1000000;
      let maxSize = 0;
      for (let step = 0; step < 30_000; step++) {
        // Mostly adds early on, mostly removals of held pairs later, so the table grows and then empties.
        const adding = ref.size === 0 || rnd(10) < (step < 15_000 ? 7 : 2);
        let id: number;
        let service: number;
        if (adding) {
          id = rnd(ids);
          service = rnd(services);
        } else ({ id, service } = held[rnd(held.length)]!);
        const by = adding ? 1 : -1;
        const k = `${id}:${service}`;
        let p = ref.get(k);
        if (p === undefined) {
          p = { id, service, n: 0, at: held.length };
          ref.set(k, p);
          held.push(p);
        }
        const n = (p.n += by);
        if (n === 0) {
          ref.delete(k);
          const last = held.pop()!;
          if (last !== p) {
            held[p.at] = last;
            last.at = p.at;
          }
        }
        const got = counts.add(id, service, by);
        if (got !== n || counts.size !== ref.size) expect({ step, got, size: counts.size }).to.deep.equal({ step, got: n, size: ref.size });
        maxSize = Math.max(maxSize, ref.size);
        if (step % 997 === 0) expect(held.filter((p) => counts.get(p.id, p.service) !== p.n)).to.deep.equal([]);
      }
      expect(maxSize).to.be.greaterThan(run % 2 === 0 && run % 3 === 0 ? 100 : 1000);
      for (const p of ref.values()) expect(counts.get(p.id, p.service)).to.equal(p.n);
      // Every pair taken back out: nothing left, and pairs never added read 0.
      for (const p of [...ref.values()]) while (p.n > 0) expect(counts.add(p.id, p.service, -1)).to.equal(--p.n);
      expect(counts.size).to.equal(0);
      expect(counts.get(0, 0)).to.equal(0);
      expect(counts.get(ids - 1, 2 ** 31 - 1)).to.equal(0);
    }
  });

  it('keeps a pair whose count went below 0 until it is back at 0', () => {
    const counts = new PairCounts();
    expect(counts.add(7, 1542, -1)).to.equal(-1);
    expect(counts.size).to.equal(1);
    expect(counts.add(7, 1542, 1)).to.equal(0);
    expect(counts.size).to.equal(0);
    expect(counts.get(7, 1542)).to.equal(0);
  });
});
