/** src/detect/detectors/event-window.ts against the array-of-events code it replaces (filter, sum, mark reported). */
import { expect } from 'chai';
import { seededRandom } from '../../../helpers/random.js';
import { EventWindow, eventStore } from '../../../../src/detect/detectors/event-window.js';

interface Event {
  t: number;
  sent: number;
  replies: number;
  src: string | number;
  reported: boolean;
}

describe('detect/detectors/event-window: EventWindow', () => {
  it('gives the totals, per-source sums and fresh events the filtered array gave, bit for bit', () => {
    const rnd = seededRandom(4242);
    for (let run = 0; run < 40; run++) {
      const windowMs = 1000 * (1 + rnd(10));
      // Each window's block comes from a store it shares with a neighbour that takes events too and is now and then
      // released (its key forgotten) and replaced, so blocks are handed back and reused while the windows grow.
      const stores = { sources: eventStore(true), bare: eventStore(false) };
      const w = new EventWindow(true, stores.sources);
      const bare = new EventWindow(false, stores.bare); // the same window without its sources
      let neighbours = [new EventWindow(true, stores.sources), new EventWindow(false, stores.bare)];
      let ref: Event[] = [];
      let now = 1_700_000_000_000;
      let reports = 0;
      for (let batch = 0; batch < 60; batch++) {
        for (let k = rnd(8); k > 0; k--) {
          now += rnd(700);
          const t = now - rnd(3) * rnd(3000); // mostly in order, some late arrivals
          const fractional = rnd(4) === 0;
          const sent = fractional ? (1 + rnd(50)) * (1 / (1 + rnd(7))) : rnd(40);
          const replies = fractional ? rnd(5) / 3 : rnd(3);
          // Text (IPv6) and number (IPv4 addressRef: int32, outside the small-integer range too) sources, mixed.
          const src = [`s${rnd(4)}`, -0x7fffff00 + rnd(3), 0x50000000 + rnd(2), rnd(3)][rnd(4)] as string | number;
          w.push(t, sent, replies, src);
          bare.push(t, sent, replies, src);
          for (const n of neighbours) n.push(t + 1, -sent, -replies, 7);
          if (rnd(20) === 0) {
            for (const n of neighbours) n.release();
            neighbours = [new EventWindow(true, stores.sources), new EventWindow(false, stores.bare)];
          }
          ref.push({ t, sent, replies, src, reported: false });
        }
        if (ref.length === 0) continue;
        // The old evaluation: filter by the newest event, sum from the first.
        let latest = -Infinity;
        for (const e of ref) if (e.t > latest) latest = e.t;
        ref = ref.filter((e) => e.t >= latest - windowMs);
        w.evict(windowMs);
        bare.evict(windowMs);
        let sent = 0;
        let replies = 0;
        const bySource = new Map<string | number, number>();
        for (const e of ref) {
          sent += e.sent;
          replies += e.replies;
          bySource.set(e.src, (bySource.get(e.src) ?? 0) + e.sent);
        }
        expect([w.length, w.sentInWindow, w.repliesInWindow], `run ${run} batch ${batch}`).to.deep.equal([ref.length, sent, replies]);
        expect([...w.bySource()]).to.deep.equal([...bySource]);
        expect([bare.length, bare.sentInWindow, bare.repliesInWindow]).to.deep.equal([ref.length, sent, replies]);
        expect(bare.bySource().size).to.equal(0);
        if (rnd(3) === 0) {
          const fresh = ref.filter((e) => !e.reported);
          for (const e of fresh) e.reported = true;
          const got = w.takeFresh();
          expect(bare.takeFresh()).to.deep.equal(got);
          if (fresh.length === 0) expect(got).to.equal(null);
          else {
            reports++;
            expect(got).to.deep.equal({
              count: fresh.length,
              sent: fresh.reduce((a, e) => a + e.sent, 0),
              first: Math.min(...fresh.map((e) => e.t)),
              last: Math.max(...fresh.map((e) => e.t)),
            });
          }
        }
      }
      expect(reports).to.be.above(0);
    }
  });
});
