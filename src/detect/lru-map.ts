/**
 * Bounded detector state: a map whose entries are ordered by last use, oldest evicted first. The same order as a Map
 * where every use deletes and re-inserts its key, without rehashing a big table on every flow: a use is one lookup
 * and a few pointer moves.
 */

interface Entry<K, V> {
  key: K;
  value: V;
  older: Entry<K, V> | null;
  newer: Entry<K, V> | null;
}

export class LruMap<K, V> {
  private readonly map = new Map<K, Entry<K, V>>();
  private oldest: Entry<K, V> | null = null;
  private newest: Entry<K, V> | null = null;

  get size(): number {
    return this.map.size;
  }

  /** The value of `key`, without changing the order. */
  get(key: K): V | undefined {
    return this.map.get(key)?.value;
  }

  /** The value of `key`, which becomes the newest entry; undefined (and no change) when absent. */
  use(key: K): V | undefined {
    const e = this.map.get(key);
    if (e === undefined) return undefined;
    this.moveToNewest(e);
    return e.value;
  }

  /** Sets `key` to `value` as the newest entry (inserting it or moving it). */
  set(key: K, value: V): void {
    const e = this.map.get(key);
    if (e !== undefined) {
      e.value = value;
      this.moveToNewest(e);
      return;
    }
    const added: Entry<K, V> = { key, value, older: this.newest, newer: null };
    if (this.newest) this.newest.newer = added;
    else this.oldest = added;
    this.newest = added;
    this.map.set(key, added);
  }

  delete(key: K): boolean {
    const e = this.map.get(key);
    if (e === undefined) return false;
    this.unlink(e);
    this.map.delete(key);
    return true;
  }

  /** Removes the oldest entries until at most `max` remain, telling `onEvict` about each (oldest first). */
  cap(max: number, onEvict?: (key: K, value: V) => void): void {
    while (this.map.size > max && this.oldest) {
      const e = this.oldest;
      this.unlink(e);
      this.map.delete(e.key);
      onEvict?.(e.key, e.value);
    }
  }

  /** Entries, oldest first. */
  *entries(): IterableIterator<[K, V]> {
    for (let e = this.oldest; e; e = e.newer) yield [e.key, e.value];
  }

  private moveToNewest(e: Entry<K, V>): void {
    if (this.newest === e) return;
    this.unlink(e);
    e.older = this.newest;
    e.newer = null;
    if (this.newest) this.newest.newer = e;
    else this.oldest = e;
    this.newest = e;
  }

  private unlink(e: Entry<K, V>): void {
    if (e.older) e.older.newer = e.newer;
    else this.oldest = e.newer;
    if (e.newer) e.newer.older = e.older;
    else this.newest = e.older;
    e.older = null;
    e.newer = null;
  }
}
