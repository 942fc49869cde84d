/**
 * Counts per (id, service) pair of small non-negative integers, in typed arrays (open addressing, linear probing): for
 * a port-scan window's (destination, service) tallies (probe-window.ts), which change with every probe that enters
 * or leaves the window. A Map keyed `id * 2 ** 24 + service` boxed most keys (past the small-integer range) and,
 * as probes came and went, re-allocated its table on the JS heap over and over (V8 rebuilds an ordered hash table
 * when deleted entries fill it, and shrinks it when it empties); here the table lives outside the JS heap and is
 * rebuilt only when it must grow, shrink, or shed deleted slots.
 */

import { HASH_SEED } from '../lru-map.js';

/** Free slot; a slot freed by {@link PairCounts.add} bringing a count to 0 holds {@link GONE} until the next rebuild. */
const EMPTY = -1;
const GONE = -2;
const MIN_SLOTS = 16;

export class PairCounts {
  /** Per slot: the pair's id (or EMPTY / GONE), its service and its count (never 0 for a live slot). */
  private ids = new Int32Array(MIN_SLOTS).fill(EMPTY);
  private services = new Int32Array(MIN_SLOTS);
  private counts = new Int32Array(MIN_SLOTS);
  /** Pairs held, and slots taken (pairs and GONE slots). */
  private live = 0;
  private taken = 0;

  /** Pairs with a count. */
  get size(): number {
    return this.live;
  }

  /** The count of (`id`, `service`); 0 when absent. */
  get(id: number, service: number): number {
    const at = this.find(id, service);
    return at < 0 ? 0 : (this.counts[at] as number);
  }

  /**
   * Adds `by` to the count of (`id`, `service`) (both integers in [0, 2 ** 31)) and returns the new count; a pair whose
   * count becomes 0 is dropped.
   */
  add(id: number, service: number, by: number): number {
    const ids = this.ids;
    const mask = ids.length - 1;
    let at = hash(id, service) & mask;
    let gone = -1;
    for (;;) {
      const cur = ids[at] as number;
      if (cur === EMPTY) break;
      if (cur === GONE) {
        if (gone < 0) gone = at;
      } else if (cur === id && this.services[at] === service) {
        const v = (this.counts[at] as number) + by;
        if (v !== 0) this.counts[at] = v;
        else {
          ids[at] = GONE;
          this.live--;
          // Mostly empty: a smaller table (rebuilt without the GONE slots).
          if (this.live * 8 < ids.length && ids.length > MIN_SLOTS) this.rebuild(ids.length >> 1);
        }
        return v;
      }
      at = (at + 1) & mask;
    }
    if (by === 0) return 0;
    if (gone >= 0) at = gone;
    else this.taken++;
    ids[at] = id;
    this.services[at] = service;
    this.counts[at] = by;
    this.live++;
    // Over half the slots taken: twice the room when over a quarter hold pairs, else the same room without GONE slots.
    if (this.taken * 2 > ids.length) this.rebuild(this.live * 4 > ids.length ? ids.length << 1 : ids.length);
    return by;
  }

  /** The slot of (`id`, `service`), or -1. */
  private find(id: number, service: number): number {
    const ids = this.ids;
    const mask = ids.length - 1;
    let at = hash(id, service) & mask;
    for (;;) {
      const cur = ids[at] as number;
      if (cur === EMPTY) return -1;
      if (cur === id && this.services[at] === service) return at;
      at = (at + 1) & mask;
    }
  }

  /** Moves the pairs into a table of `slots` slots (a power of two, over twice the pairs). */
  private rebuild(slots: number): void {
    const { ids, services, counts } = this;
    const toIds = new Int32Array(slots).fill(EMPTY);
    const toServices = new Int32Array(slots);
    const toCounts = new Int32Array(slots);
    const mask = slots - 1;
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k] as number;
      if (id < 0) continue;
      const service = services[k] as number;
      let at = hash(id, service) & mask;
      while (toIds[at] !== EMPTY) at = (at + 1) & mask;
      toIds[at] = id;
      toServices[at] = service;
      toCounts[at] = counts[k] as number;
    }
    this.ids = toIds;
    this.services = toServices;
    this.counts = toCounts;
    this.taken = this.live;
  }
}

/**
 * Mixes a pair into 32 bits (murmur3's finalizer over the two words), seeded per process like every detector table:
 * the services are the ports a scanner chose.
 */
function hash(id: number, service: number): number {
  let x = Math.imul(id ^ HASH_SEED, 0x9e3779b1) ^ service;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return x ^ (x >>> 16);
}
