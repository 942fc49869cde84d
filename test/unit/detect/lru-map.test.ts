/** src/detect/lru-map.ts against the Map-based LRU it replaces (delete + set on use, evict from the front). */
import { expect } from 'chai';
import { seededRandom } from '../../helpers/random.js';
import { KeyTable, LruTable, type Keyed, type TableKey } from '../../../src/detect/lru-map.js';

/** The reference: a Map used as an LRU (what the detectors did before), keyed by the key's text. */
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

/** A key's reference text: equal exactly when a Map would take the key's parts as the same keys (SameValueZero). */
const refKey = (k: Readonly<TableKey>): string => (k.text !== null ? `text:${k.text}` : `numbers:${String(k.a)}|${String(k.b)}`);

/** Numbers that must stay apart, or together as Map keys: 0 and -0, NaN, fractions, large and negative values. */
const NUMBERS = [0, -0, 1, -1, 0.5, NaN, 65536, 2 ** 32, 2 ** 32 + 1, 2 ** 48 - 1, -(2 ** 47), 1_700_000_000_123.456, 1_700_000_000_123.457];

describe('detect/lru-map: LruTable', () => {
  it('keeps the same entries in the same order as a Map with touch() and capMap(), through random operations', () => {
    const rnd = seededRandom(99);
    for (const max of [1, 3, 10, 50, 600]) {
      // A pool of keys: pairs of the numbers above, many plain integers (to fill buckets and grow), and strings.
      const pool: TableKey[] = [];
      for (let i = 0; i < max * 3; i++) {
        const kind = rnd(4);
        if (kind === 0) pool.push({ a: NUMBERS[rnd(NUMBERS.length)] as number, b: NUMBERS[rnd(NUMBERS.length)] as number, text: null });
        else if (kind === 1) pool.push({ a: 0, b: 0, text: `k${rnd(max * 2)}` });
        else pool.push({ a: rnd(max * 4) * 65536 + rnd(3), b: rnd(2) * 2 ** 40, text: null });
      }
      const table = new LruTable<number>();
      const ref = new Map<string, number>();
      const evicted: number[] = [];
      const refEvicted: number[] = [];
      for (let step = 0; step < 4000; step++) {
        const key = pool[rnd(pool.length)] as TableKey;
        const id = refKey(key);
        const op = rnd(10);
        const slot = table.find(key);
        expect(slot >= 0 ? table.value(slot) : undefined, `find ${id}`).to.equal(ref.get(id));
        if (op < 4) {
          const had = ref.get(id);
          if (had !== undefined) touch(ref, id, had);
          if (slot >= 0) table.use(slot);
        } else if (op < 8) {
          if (slot < 0) {
            ref.set(id, step);
            expect(table.value(table.add(key, step))).to.equal(step);
          }
        } else if (slot >= 0) {
          ref.delete(id);
          table.remove(slot);
        }
        if (rnd(4) === 0) {
          refEvicted.push(...[...ref.values()].slice(0, Math.max(0, ref.size - max)));
          capMap(ref, max);
          table.cap(max, (v) => evicted.push(v));
        }
        expect(table.size).to.equal(ref.size);
        if (step % 50 === 0 || max <= 10) {
          expect(
            [...table.entries()].map(([k, v]) => [refKey(k), v]),
            `max ${max}, step ${step}`,
          ).to.deep.equal([...ref.entries()]);
        }
      }
      expect([...table.entries()].map(([k, v]) => [refKey(k), v])).to.deep.equal([...ref.entries()]);
      expect(evicted).to.deep.equal(refEvicted);
      expect(evicted.length).to.be.above(0);
    }
  });

  it('tells numeric keys apart as Map keys do: -0 is 0, NaN is NaN, nearby fractions differ, and never a string', () => {
    const table = new LruTable<string>();
    for (const a of NUMBERS) for (const b of NUMBERS) if (table.find({ a, b, text: null }) < 0) table.add({ a, b, text: null }, `${a}|${b}`);
    // 13 numbers, of which 0 and -0 are one key.
    expect(table.size).to.equal(12 * 12);
    expect(table.value(table.find({ a: -0, b: NaN, text: null }))).to.equal('0|NaN');
    expect(table.find({ a: 1_700_000_000_123.458, b: 0, text: null })).to.equal(-1);
    expect(table.find({ a: 0, b: 0, text: '0|0' })).to.equal(-1);
  });
});

describe('detect/lru-map: KeyTable', () => {
  interface State extends Keyed {
    name: string;
  }
  const key = (a: number): TableKey => ({ a, b: 0, text: null });

  it('lists the states a batch touched once each, in order of first touch, without those evicted', () => {
    const keys = new KeyTable<State>();
    const state = (name: string): State => ({ slot: -1, batch: 0, name });
    keys.begin();
    for (const a of [1, 2, 1, 3]) keys.use(key(a)) ?? keys.add(key(a), state(`s${a}`));
    expect(keys.live().map((s) => s.name)).to.deep.equal(['s1', 's2', 's3']);
    keys.begin();
    for (const a of [3, 4, 2, 5]) keys.use(key(a)) ?? keys.add(key(a), state(`s${a}`));
    keys.cap(3); // least recently used first: 1 (not touched), then 3
    expect(keys.live().map((s) => s.name)).to.deep.equal(['s4', 's2', 's5']);
    expect(keys.keyOf(keys.live()[0] as State)).to.deep.equal(key(4));
    expect(keys.use(key(3))).to.equal(undefined);
    keys.begin();
    expect(keys.live()).to.deep.equal([]);
  });

  it('lists only the current batch: fewer states than an earlier batch, no live() in between, touches after live()', () => {
    const keys = new KeyTable<State>();
    const names = (): string[] => keys.live().map((s) => s.name);
    const touchAll = (list: number[]): void => {
      for (const a of list) keys.use(key(a)) ?? keys.add(key(a), { slot: -1, batch: 0, name: `s${a}` });
    };
    keys.begin();
    touchAll([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(names()).to.deep.equal(['s1', 's2', 's3', 's4', 's5', 's6', 's7', 's8']);
    keys.begin();
    touchAll([9, 3]);
    expect(names()).to.deep.equal(['s9', 's3']);
    keys.begin(); // a batch nobody lists
    touchAll([1, 2, 4, 5, 6]);
    keys.begin();
    touchAll([7, 2]);
    expect(names()).to.deep.equal(['s7', 's2']);
    touchAll([2, 10, 7, 11]); // after live(), in the same batch
    keys.cap(3); // keeps the newest three (10, 7, 11): 2 goes with the untouched ones
    expect(names()).to.deep.equal(['s7', 's10', 's11']);
    keys.begin();
    touchAll([1, 5]);
    keys.cap(2); // 1 and 5 were evicted before: new states, now the two newest
    expect(names()).to.deep.equal(['s1', 's5']);
  });
});
