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

/** The arrays of a window without events (shared, never written: a window gets its own on its first event). */
const NO_EVENTS: readonly number[] = [];
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

export class EventWindow {
  /**
   * The running figures (see {@link EVENTS}), then per event, in arrival order, {@link stride} numbers: capture time
   * (epoch ms), packets sent, replies and, when sources are kept, the source (address.ts `addressRef`) when it is a
   * number, else NaN. Empty before the first event. Numbers in a number array are not boxed, where an IPv4 `addressRef`
   * outside the small-integer range (64.0.0.0 to 191.255.255.255) was a heap object per event in an array of sources.
   */
  private ev = NO_EVENTS as number[];
  /** Numbers per event: 4 when sources are kept, else 3. */
  private readonly stride: number;
  /** Sources that are text (IPv6 addresses), by event, where `ev` has NaN (empty until one arrives; holes elsewhere). */
  private texts = NO_TEXTS as string[];
  /**
   * Events `[0, reported)` have been reported. Reporting marks every event of the window and later ones are appended,
   * so the reported events are always a prefix.
   */
  private reported = 0;

  /** @param keepSources Whether {@link bySource} is wanted (else the sources are not kept). */
  constructor(keepSources = true) {
    this.stride = keepSources ? 4 : 3;
  }

  get length(): number {
    return this.ev.length === 0 ? 0 : (this.ev.length - EVENTS) / this.stride;
  }

  /** Packets sent within the window (after {@link evict}). */
  get sentInWindow(): number {
    return this.ev.length === 0 ? 0 : (this.ev[SENT] as number);
  }

  get repliesInWindow(): number {
    return this.ev.length === 0 ? 0 : (this.ev[REPLIES] as number);
  }

  push(t: number, sent: number, replies: number, src: AddressRef): void {
    let ev = this.ev;
    if (this.stride === 3) {
      // Exact-size literals for the first two events: a push() onto an array of 0 or 1 elements reserves 17 slots, and
      // most detector keys see one or two events.
      if (ev.length === 0) ev = this.ev = [-Infinity, Infinity, 0, 0, t, sent, replies];
      else if (ev.length === EVENTS + 3) {
        ev = this.ev = [
          ev[0] as number,
          ev[1] as number,
          ev[2] as number,
          ev[3] as number,
          ev[4] as number,
          ev[5] as number,
          ev[6] as number,
          t,
          sent,
          replies,
        ];
      } else ev.push(t, sent, replies);
    } else {
      const s = typeof src === 'number' ? src : Number.NaN;
      if (typeof src !== 'number') {
        if (this.texts === NO_TEXTS) this.texts = [];
        this.texts[this.length] = src;
      }
      if (ev.length === 0) ev = this.ev = [-Infinity, Infinity, 0, 0, t, sent, replies, s];
      else if (ev.length === EVENTS + 4) {
        ev = this.ev = [
          ev[0] as number,
          ev[1] as number,
          ev[2] as number,
          ev[3] as number,
          ev[4] as number,
          ev[5] as number,
          ev[6] as number,
          ev[7] as number,
          t,
          sent,
          replies,
          s,
        ];
      } else ev.push(t, sent, replies, s);
    }
    if (t > (ev[NEWEST] as number)) ev[NEWEST] = t;
    if (t < (ev[OLDEST] as number)) ev[OLDEST] = t;
    ev[SENT] = (ev[SENT] as number) + sent;
    ev[REPLIES] = (ev[REPLIES] as number) + replies;
  }

  /** Drops the events older than the newest one minus `windowMs`. */
  evict(windowMs: number): void {
    const { ev, stride, texts } = this;
    if (ev.length === 0) return;
    const cutoff = (ev[NEWEST] as number) - windowMs;
    if (!((ev[OLDEST] as number) < cutoff)) return;
    const n = (ev.length - EVENTS) / stride;
    let kept = 0;
    let reportedDropped = 0;
    for (let i = 0; i < n; i++) {
      const at = EVENTS + stride * i;
      if ((ev[at] as number) < cutoff) {
        if (i < this.reported) reportedDropped++;
        continue;
      }
      if (kept !== i) {
        const to = EVENTS + stride * kept;
        for (let f = 0; f < stride; f++) ev[to + f] = ev[at + f] as number;
        if (texts !== NO_TEXTS) texts[kept] = texts[i] as string;
      }
      kept++;
    }
    ev.length = EVENTS + stride * kept;
    if (texts !== NO_TEXTS && texts.length > kept) texts.length = kept;
    this.reported -= reportedDropped;
    let oldest = Infinity;
    let sent = 0;
    let replies = 0;
    for (let at = EVENTS; at < ev.length; at += stride) {
      if ((ev[at] as number) < oldest) oldest = ev[at] as number;
      sent += ev[at + 1] as number;
      replies += ev[at + 2] as number;
    }
    ev[OLDEST] = oldest;
    ev[SENT] = sent;
    ev[REPLIES] = replies;
  }

  /** Packets sent per source within the window, sources in order of their first event (empty unless kept). */
  bySource(): Map<AddressRef, number> {
    const out = new Map<AddressRef, number>();
    if (this.stride === 3) return out;
    const n = this.length;
    for (let i = 0; i < n; i++) {
      const at = EVENTS + 4 * i;
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
      const ti = this.ev[EVENTS + this.stride * i] as number;
      sent += this.ev[EVENTS + this.stride * i + 1] as number;
      if (ti < first) first = ti;
      if (ti > last) last = ti;
    }
    const count = n - this.reported;
    this.reported = n;
    return { count, sent, first, last };
  }
}
