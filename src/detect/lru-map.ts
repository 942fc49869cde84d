/**
 * Bounded detector state: a table whose entries are ordered by last use, oldest evicted first (the order of a Map
 * where every use deletes and re-inserts its key). Keys are two numbers, or a string for keys that do not fit in two
 * numbers (see address.ts): numeric keys live in typed arrays (open hashing, no allocation per lookup or entry), string
 * keys in a Map; both kinds share the slots and the use order. Entries are addressed by slot: a slot stays its entry's
 * until the entry is removed or evicted.
 */
import { objectArray } from './arrays.js';

/** A table key: `text` when not null, else the pair (`a`, `b`) (compared as Map keys compare numbers). */
export interface TableKey {
  a: number;
  b: number;
  text: string | null;
}

/**
 * A table key for a caller to fill before each lookup (one per caller, reused: no allocation per lookup). Made by one
 * constructor rather than an object literal per caller, with the fields' final kinds from the start: the numbers are
 * 32-bit address values and fractional times, not small integers, and `text` is a string or null. Literal keys
 * started with small-integer fields that V8 widened at the first larger value, which invalidated the optimised code
 * of the other key users: with `node --trace-deopt`, "code dependencies" deoptimisations of server-names.ts'
 * `observe`/`numericKey` and beacon.ts' `observe`/`nameSlot` in the first measured pipeline run, gone with this.
 */
class ReusableKey implements TableKey {
  a: number;
  b: number;
  text: string | null;
  constructor() {
    // Non-integer start values give the fields their double representation at once (the values are overwritten
    // before every use).
    this.a = 0.5;
    this.b = 0.5;
    this.text = null;
  }
}

/** A new reusable {@link TableKey} (see `ReusableKey`). */
export function reusableKey(): TableKey {
  return new ReusableKey();
}

/**
 * Per-process hash seed, so that nobody outside can choose keys that all land in one bucket: for every hash table of
 * detector state keyed by what the traffic carries (this file, pair-counts.ts, address.ts' key memos).
 */
export const HASH_SEED = (Math.random() * 2 ** 32) | 0;

function mix(h: number, w: number): number {
  const x = Math.imul(h ^ w, 0x9e3779b1);
  return x ^ (x >>> 15);
}

/**
 * Hash of a number's value: its low 32 integer bits and the next ones (equal numbers hash alike: -0 as 0, NaN as 0;
 * fractions only through their integer part).
 */
function mixNumber(h: number, v: number): number {
  return mix(mix(h, v >>> 0), (v / 4294967296) | 0);
}

const NONE = -1;

export class LruTable<V> {
  private capacity = 0;
  private keyA = new Float64Array(0);
  private keyB = new Float64Array(0);
  /** String key of each slot; null for numeric keys. */
  private texts: Array<string | null> = [];
  private values: Array<V | undefined> = [];
  /** Next slot in the same bucket (numeric keys), or in the free list. */
  private chain = new Int32Array(0);
  private older = new Int32Array(0);
  private newer = new Int32Array(0);
  private buckets = new Int32Array(0);
  private readonly byText = new Map<string, number>();
  private oldest = NONE;
  private newest = NONE;
  private free = NONE;
  /** Slots below this have been handed out. */
  private top = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The slot of `key`, or -1. Does not change the order. */
  find(key: Readonly<TableKey>): number {
    if (key.text !== null) return this.byText.get(key.text) ?? NONE;
    if (this.capacity === 0) return NONE;
    const { a, b } = key;
    for (let s = this.buckets[this.bucketOf(a, b)] as number; s !== NONE; s = this.chain[s] as number) {
      const x = this.keyA[s] as number;
      const y = this.keyB[s] as number;
      // Map key equality (SameValueZero): === except that NaN equals NaN.
      if ((x === a || (x !== x && a !== a)) && (y === b || (y !== y && b !== b))) return s;
    }
    return NONE;
  }

  /** Adds `key` (which must be absent) with `value` as the newest entry; returns its slot. */
  add(key: Readonly<TableKey>, value: V): number {
    if (this.free === NONE && this.top === this.capacity) this.grow();
    let s: number;
    if (this.free !== NONE) {
      s = this.free;
      this.free = this.chain[s] as number;
    } else s = this.top++;
    this.values[s] = value;
    this.texts[s] = key.text;
    if (key.text !== null) {
      this.byText.set(key.text, s);
    } else {
      this.keyA[s] = key.a;
      this.keyB[s] = key.b;
      const h = this.bucketOf(key.a, key.b);
      this.chain[s] = this.buckets[h] as number;
      this.buckets[h] = s;
    }
    this.older[s] = this.newest;
    this.newer[s] = NONE;
    if (this.newest !== NONE) this.newer[this.newest] = s;
    else this.oldest = s;
    this.newest = s;
    this.count++;
    return s;
  }

  /** The value in `slot`. */
  value(slot: number): V {
    return this.values[slot] as V;
  }

  /** Replaces the value in `slot` (the order does not change). */
  set(slot: number, value: V): void {
    this.values[slot] = value;
  }

  /** The key of `slot` (a new object). */
  keyAt(slot: number): TableKey {
    return { a: this.keyA[slot] as number, b: this.keyB[slot] as number, text: this.texts[slot] ?? null };
  }

  /** Makes `slot` the newest entry. */
  use(slot: number): void {
    if (this.newest === slot) return;
    this.unlink(slot);
    this.older[slot] = this.newest;
    this.newer[slot] = NONE;
    this.newer[this.newest] = slot; // not NONE: the table holds `slot` and another entry
    this.newest = slot;
  }

  /** Removes the entry in `slot`. */
  remove(slot: number): void {
    this.unlink(slot);
    const text = this.texts[slot] ?? null;
    if (text !== null) this.byText.delete(text);
    else {
      const h = this.bucketOf(this.keyA[slot] as number, this.keyB[slot] as number);
      let s = this.buckets[h] as number;
      if (s === slot) this.buckets[h] = this.chain[slot] as number;
      else {
        while (this.chain[s] !== slot) s = this.chain[s] as number;
        this.chain[s] = this.chain[slot] as number;
      }
    }
    this.values[slot] = undefined;
    this.texts[slot] = null;
    this.chain[slot] = this.free;
    this.free = slot;
    this.count--;
  }

  /** Removes the oldest entries until at most `max` remain, telling `onEvict` about each (oldest first) and its former slot. */
  cap(max: number, onEvict?: (value: V, slot: number) => void): void {
    while (this.count > max) {
      const s = this.oldest;
      const v = this.values[s] as V;
      this.remove(s);
      onEvict?.(v, s);
    }
  }

  /** Keys and values, oldest first. */
  *entries(): IterableIterator<[TableKey, V]> {
    for (let s = this.oldest; s !== NONE; s = this.newer[s] as number) yield [this.keyAt(s), this.values[s] as V];
  }

  private bucketOf(a: number, b: number): number {
    const h = Math.imul(mixNumber(mixNumber(HASH_SEED, a), b), 0x85ebca6b);
    return (h ^ (h >>> 16)) & (this.buckets.length - 1);
  }

  private unlink(s: number): void {
    const o = this.older[s] as number;
    const n = this.newer[s] as number;
    if (o !== NONE) this.newer[o] = n;
    else this.oldest = n;
    if (n !== NONE) this.older[n] = o;
    else this.newest = o;
  }

  /** Doubles the slots (and the buckets: at most one numeric key per two buckets), keeping every entry's slot. */
  private grow(): void {
    const capacity = Math.max(16, this.capacity * 2);
    const widen = <A extends Float64Array | Int32Array>(from: A, to: A): A => {
      to.set(from);
      return to;
    };
    this.keyA = widen(this.keyA, new Float64Array(capacity));
    this.keyB = widen(this.keyB, new Float64Array(capacity));
    this.chain = widen(this.chain, new Int32Array(capacity));
    this.older = widen(this.older, new Int32Array(capacity));
    this.newer = widen(this.newer, new Int32Array(capacity));
    this.capacity = capacity;
    this.buckets = new Int32Array(capacity * 2).fill(NONE);
    for (let s = this.oldest; s !== NONE; s = this.newer[s] as number) {
      if (this.texts[s] !== null) continue;
      const h = this.bucketOf(this.keyA[s] as number, this.keyB[s] as number);
      this.chain[s] = this.buckets[h] as number;
      this.buckets[h] = s;
    }
  }
}

/** Per-key detector state in a {@link KeyTable}. */
export interface Keyed {
  /** Slot in the table; -1 once evicted. */
  slot: number;
  /** The last batch that touched it. */
  batch: number;
}

/**
 * A detector's keys for batch processing: an {@link LruTable} of states plus the states the current batch touched, in
 * the order of their first touch.
 */
export class KeyTable<S extends Keyed> {
  readonly table = new LruTable<S>();
  /**
   * The states the batch touched: its first `touchedCount`; those beyond are an earlier batch's, overwritten as the
   * batch touches states. Not emptied at the start of a batch: `length = 0` gives an array's backing store up, and
   * the next batch grew a new one push by push (with the flood detectors, about 6 MB per 5 runs over the bench input).
   */
  private readonly touched: S[] = objectArray<S>();
  private touchedCount = 0;
  private batch = 0;
  private readonly evicted = (state: S): void => {
    state.slot = -1;
  };

  /** Starts a batch (and forgets the states the previous one touched). */
  begin(): void {
    this.batch++;
    this.touchedCount = 0;
  }

  /** The state of `key`, now the newest entry and touched; undefined (and no change) when absent. */
  use(key: Readonly<TableKey>): S | undefined {
    const slot = this.table.find(key);
    if (slot < 0) return undefined;
    this.table.use(slot);
    return this.mark(this.table.value(slot));
  }

  /** Adds `state` for `key` (absent) as the newest entry, touched. */
  add(key: Readonly<TableKey>, state: S): S {
    state.slot = this.table.add(key, state);
    return this.mark(state);
  }

  /** Evicts the least recently used keys beyond `max`. */
  cap(max: number): void {
    this.table.cap(max, this.evicted);
  }

  /** The states the batch touched that are still in the table, in the order of their first touch. */
  live(): readonly S[] {
    const touched = this.touched;
    let k = 0;
    for (let i = 0; i < this.touchedCount; i++) {
      const state = touched[i] as S;
      if (state.slot >= 0) touched[k++] = state;
    }
    // Shorter only by the states evicted and by what an earlier batch left: V8 keeps the backing store unless the
    // array shrinks to under about half of it.
    touched.length = k;
    this.touchedCount = k;
    return touched;
  }

  /** The key of a live state. */
  keyOf(state: S): TableKey {
    return this.table.keyAt(state.slot);
  }

  private mark(state: S): S {
    if (state.batch !== this.batch) {
      state.batch = this.batch;
      const touched = this.touched;
      if (this.touchedCount < touched.length) touched[this.touchedCount] = state;
      else touched.push(state);
      this.touchedCount++;
    }
    return state;
  }
}

/**
 * A Set of text keys that forgets its oldest entry past `capacity` (insertion order): what a detector has already
 * reported, so a finding is made once per key while memory stays bounded.
 */
export class BoundedSet {
  private readonly keys = new Set<string>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.keys.size;
  }

  has(key: string): boolean {
    return this.keys.has(key);
  }

  /** Adds `key` (the oldest key goes past the capacity); false when it was there already. */
  add(key: string): boolean {
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    if (this.keys.size > this.capacity) this.keys.delete(this.keys.values().next().value as string);
    return true;
  }

  /** Removes `key`; false when it was not there. */
  delete(key: string): boolean {
    return this.keys.delete(key);
  }
}

/**
 * A bounded map from a text key to its newest few values (values equal under `identity` count once), the least
 * recently touched key forgotten first past `maxKeys`: the server names and programs seen per address or pair. Kept in
 * an {@link LruTable}, so touching a key relinks it instead of deleting and re-inserting it in a Map (every flow with a
 * server name touches two keys).
 */
export class RecentValues<T> {
  private readonly table = new LruTable<T[]>();
  private readonly key: TableKey = reusableKey();

  constructor(
    private readonly maxKeys: number,
    private readonly maxValues: number,
    private readonly identity: (value: T) => unknown,
  ) {}

  get size(): number {
    return this.table.size;
  }

  add(key: string, value: T): void {
    this.key.text = key;
    this.addAt(this.key, value);
  }

  /**
   * {@link add} under a table key (a numeric one spares building and hashing a string per call; see address.ts): the
   * caller keeps each key's form the same, so that equal keys are equal table keys.
   */
  addAt(key: Readonly<TableKey>, value: T): void {
    const slot = this.table.find(key);
    if (slot < 0) {
      this.table.add(key, [value]);
      this.table.cap(this.maxKeys);
      return;
    }
    this.table.use(slot);
    const list = this.table.value(slot);
    const id = this.identity(value);
    // An equal value moves to the newest place (most often it is there already).
    const last = list.length - 1;
    if (this.identity(list[last] as T) === id) {
      list[last] = value;
      return;
    }
    for (let at = 0; at < last; at++) {
      if (this.identity(list[at] as T) === id) {
        list.splice(at, 1);
        break;
      }
    }
    list.push(value);
    if (list.length > this.maxValues) list.shift();
  }

  get(key: string): readonly T[] {
    this.key.text = key;
    return this.getAt(this.key);
  }

  /** {@link get} under a table key (see {@link addAt}). */
  getAt(key: Readonly<TableKey>): readonly T[] {
    const slot = this.table.find(key);
    return slot < 0 ? [] : this.table.value(slot);
  }
}

/** Sets `key` (a {@link reusableKey}) to the IPv4 values `x` and `y` (0 for an address alone), in either order. */
export function setIpv4PairKey(key: TableKey, x: number, y: number): TableKey {
  key.a = Math.min(x, y);
  key.b = Math.max(x, y);
  key.text = null;
  return key;
}

/** Sets `key` (a {@link reusableKey}) to the text `text`. */
export function setTextKey(key: TableKey, text: string): TableKey {
  key.text = text;
  return key;
}

/** Key of an unordered address pair. */
export const pairKey = (a: string, b: string): string => (a < b ? `${a}|${b}` : `${b}|${a}`);
