/**
 * The events of one flood-detector key (packets sent and replies at a capture time, from a source) within a sliding
 * window of capture time. One array of numbers (three per event, four with the source) instead of an object per event;
 * running totals and the oldest time, so a batch that adds events costs what it adds unless the window has to move.
 *
 * Same results as keeping the events in an array and, at each evaluation, filtering out those older than the newest
 * minus the window and summing the rest from the first: totals are summed in that order (recomputed after a removal),
 * so they are the same floating-point numbers.
 */
import type { AddressRef } from './address.js';
import { BLOCK_CLASSES, BlockStore } from './block-store.js';

/** The texts of a window without text sources (shared, never written: a window gets its own on its first one). */
const NO_TEXTS: readonly string[] = [];

/**
 * Positions of the running figures at the head of a window's numbers (numbers in an array are not boxed; four number
 * fields would be four heap objects per window): newest time pushed (the newest event never leaves the window), oldest
 * time, packets sent and replies within the window.
 */
const NEWEST = 0;
const OLDEST = 1;
const SENT = 2;
const REPLIES = 3;
/** Index of the first event's time. */
const EVENTS = 4;

/**
 * The blocks of a detector's small event windows (see block-store.ts), for windows that keep their sources
 * (`keepSources`) or not: one store per kind.
 */
export function eventStore(keepSources: boolean): BlockStore {
  return new BlockStore(EVENTS, keepSources ? 4 : 3);
}

export class EventWindow {
  /**
   * The window's numbers from `off` on: the running figures (see {@link EVENTS}), then per event, in arrival order,
   * {@link stride} numbers: capture time (epoch ms), packets sent, replies and, when sources are kept, the source
   * (address.ts `addressRef`) when it is a number, else NaN. Up to 32 events, a block of a chunk of the store (`cls`
   * its size class); past that, a typed array of the window's own (`cls` -1, `off` 0), grown by doubling. Empty
   * before the first event. An IPv4 `addressRef` outside the small-integer range (64.0.0.0 to 191.255.255.255) is a
   * heap object in an array of sources, not here; and a plain array per window, re-allocated as it grew, was most of
   * what the flood detectors allocated.
   */
  private ev: Float64Array;
  private off = 0;
  /** Size class of the window's block in the store (room for `2 ** cls` events); -1 when `ev` is its own. */
  private cls = -1;
  /** Numbers of the window in use (0 before the first event). */
  private used = 0;
  /** Numbers per event: 4 when sources are kept, else 3. */
  private readonly stride: number;
  /** Sources that are text (IPv6 addresses), by event, where `ev` has NaN (empty until one arrives; holes elsewhere). */
  private texts = NO_TEXTS as string[];
  /**
   * Events `[0, reported)` have been reported. Reporting marks every event of the window and later ones are appended,
   * so the reported events are always a prefix.
   */
  private reported = 0;
  private readonly store: BlockStore;

  /**
   * @param keepSources Whether {@link bySource} is wanted (else the sources are not kept).
   * @param store Where the window's block comes from: one per detector and kind (see {@link eventStore}; see
   *   {@link release}).
   */
  constructor(keepSources = true, store?: BlockStore) {
    this.stride = keepSources ? 4 : 3;
    this.store = store ?? eventStore(keepSources);
    if (this.store.stride !== this.stride) throw new Error('event store of another kind');
    this.ev = this.store.allocated;
  }

  get length(): number {
    return this.used === 0 ? 0 : (this.used - EVENTS) / this.stride;
  }

  /** Packets sent within the window (after {@link evict}). */
  get sentInWindow(): number {
    return this.used === 0 ? 0 : (this.ev[this.off + SENT] as number);
  }

  get repliesInWindow(): number {
    return this.used === 0 ? 0 : (this.ev[this.off + REPLIES] as number);
  }

  push(t: number, sent: number, replies: number, src: AddressRef): void {
    const stride = this.stride;
    let at = this.used;
    if (at === 0) {
      const off = (this.off = this.store.alloc((this.cls = 0)));
      const ev = (this.ev = this.store.allocated);
      ev[off + NEWEST] = -Infinity;
      ev[off + OLDEST] = Infinity;
      ev[off + SENT] = 0;
      ev[off + REPLIES] = 0;
      at = EVENTS;
    } else if (this.cls >= 0 ? at === this.store.size(this.cls) : at === this.ev.length) this.grow();
    const ev = this.ev;
    const off = this.off;
    const to = off + at;
    ev[to] = t;
    ev[to + 1] = sent;
    ev[to + 2] = replies;
    if (stride === 4) {
      if (typeof src !== 'number') {
        if (this.texts === NO_TEXTS) this.texts = [];
        this.texts[(at - EVENTS) / 4] = src;
        ev[to + 3] = Number.NaN;
      } else ev[to + 3] = src;
    }
    this.used = at + stride;
    if (t > (ev[off + NEWEST] as number)) ev[off + NEWEST] = t;
    if (t < (ev[off + OLDEST] as number)) ev[off + OLDEST] = t;
    ev[off + SENT] = (ev[off + SENT] as number) + sent;
    ev[off + REPLIES] = (ev[off + REPLIES] as number) + replies;
  }

  /** Room for twice the events: the store's block of the next class, or past the largest a typed array of its own. */
  private grow(): void {
    const next = this.store.grow(this.ev, this.off, this.used, this.cls);
    this.freeBlock();
    this.cls = next;
    this.ev = this.store.allocated;
    this.off = this.store.grownAt;
  }

  /** Hands the window's block back to the store (its key is forgotten: the window is not used again). */
  release(): void {
    this.freeBlock();
  }

  private freeBlock(): void {
    if (this.cls >= 0) this.store.free(this.cls, this.ev, this.off);
    this.cls = -1;
  }

  /** Drops the events older than the newest one minus `windowMs`. */
  evict(windowMs: number): void {
    const { ev, off, stride, texts } = this;
    if (this.used === 0) return;
    const cutoff = (ev[off + NEWEST] as number) - windowMs;
    if (!((ev[off + OLDEST] as number) < cutoff)) return;
    const n = this.length;
    let kept = 0;
    let reportedDropped = 0;
    for (let i = 0; i < n; i++) {
      const at = off + EVENTS + stride * i;
      if ((ev[at] as number) < cutoff) {
        if (i < this.reported) reportedDropped++;
        continue;
      }
      if (kept !== i) {
        const to = off + EVENTS + stride * kept;
        for (let f = 0; f < stride; f++) ev[to + f] = ev[at + f] as number;
        if (texts !== NO_TEXTS) texts[kept] = texts[i] as string;
      }
      kept++;
    }
    this.used = EVENTS + stride * kept;
    if (texts !== NO_TEXTS && texts.length > kept) texts.length = kept;
    this.reported -= reportedDropped;
    let oldest = Infinity;
    let sent = 0;
    let replies = 0;
    const end = off + this.used;
    for (let at = off + EVENTS; at < end; at += stride) {
      if ((ev[at] as number) < oldest) oldest = ev[at] as number;
      sent += ev[at + 1] as number;
      replies += ev[at + 2] as number;
    }
    ev[off + OLDEST] = oldest;
    ev[off + SENT] = sent;
    ev[off + REPLIES] = replies;
    // Room for four times the events left in an array of its own: give it back (a burst has left the window).
    if (this.cls < 0 && ev.length > 4 * this.used && ev.length > 64) this.ev = ev.slice(0, EVENTS + 2 * (this.used - EVENTS));
  }

  /** Packets sent per source within the window, sources in order of their first event (empty unless kept). */
  bySource(): Map<AddressRef, number> {
    const out = new Map<AddressRef, number>();
    if (this.stride === 3) return out;
    const n = this.length;
    for (let i = 0; i < n; i++) {
      const at = this.off + EVENTS + 4 * i;
      const num = this.ev[at + 3] as number;
      const s: AddressRef = num === num ? num : (this.texts[i] as string);
      out.set(s, (out.get(s) ?? 0) + (this.ev[at + 1] as number));
    }
    return out;
  }

  /**
   * The events not reported yet: how many, their packets sent (summed in order) and their time span; marks them
   * reported. Null (and nothing marked) when there are none.
   */
  takeFresh(): { count: number; sent: number; first: number; last: number } | null {
    const n = this.length;
    if (this.reported >= n) return null;
    let sent = 0;
    let first = Infinity;
    let last = -Infinity;
    for (let i = this.reported; i < n; i++) {
      const ti = this.ev[this.off + EVENTS + this.stride * i] as number;
      sent += this.ev[this.off + EVENTS + this.stride * i + 1] as number;
      if (ti < first) first = ti;
      if (ti > last) last = ti;
    }
    const count = n - this.reported;
    this.reported = n;
    return { count, sent, first, last };
  }
}
