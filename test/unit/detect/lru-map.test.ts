/** src/detect/lru-map.ts against the Map-based LRU it replaces (delete + set on use, evict from the front). */
import { expect } from 'chai';
import { seededRandom } from '../../helpers/random.js';
import { LruMap } from '../../../src/detect/lru-map.js';

/** The reference: a Map used as an LRU (what the detectors did before LruMap). */
function touch<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  map.set(key, value);
}
function capMap<K, V>(map: Map<K, V>, max: number): void {
  let excess = map.size - max;
  for (const key of map.keys()) {
    if (excess-- <= 0) break;
    map.delete(key);
  }
}

describe('detect/lru-map: LruMap', () => {
  it('keeps the same entries in the same order as a Map with touch() and capMap(), through random operations', () => {
    const rnd = seededRandom(99);
    for (const max of [1, 3, 10, 50]) {
      const lru = new LruMap<string, number>();
      const ref = new Map<string, number>();
      const evicted: string[] = [];
      const refEvicted: string[] = [];
      for (let step = 0; step < 3000; step++) {
        const key = `k${rnd(max * 3)}`;
        const op = rnd(10);
        if (op < 4) {
          const had = ref.get(key);
          if (had !== undefined) touch(ref, key, had);
          expect(lru.use(key)).to.equal(had);
        } else if (op < 8) {
          touch(ref, key, step);
          lru.set(key, step);
        } else if (op < 9) {
          expect(lru.delete(key)).to.equal(ref.delete(key));
        } else {
          expect(lru.get(key)).to.equal(ref.get(key)); // no reordering
        }
        if (rnd(4) === 0) {
          refEvicted.push(...[...ref.keys()].slice(0, Math.max(0, ref.size - max)));
          capMap(ref, max);
          lru.cap(max, (k, v) => {
            expect(v).to.be.a('number');
            evicted.push(k);
          });
        }
        expect([...lru.entries()], `max ${max}, step ${step}`).to.deep.equal([...ref.entries()]);
        expect(lru.size).to.equal(ref.size);
      }
      expect(evicted).to.deep.equal(refEvicted);
      expect(evicted.length).to.be.above(0);
    }
  });
});
