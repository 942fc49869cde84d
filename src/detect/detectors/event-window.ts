/**
 * The events of one flood-detector key (packets sent and replies at a capture time, from a source) within a sliding
 * window of capture time. One array of numbers (three per event) and one of sources instead of an object per event;
 * running totals and the oldest time, so a batch that adds events costs what it adds unless the window has to move.
 *
 * Same results as keeping the events in an array and, at each evaluation, filtering out those older than the newest
 * minus the window and summing the rest from the first: totals are summed in that order (recomputed after a removal),
 * so they are the same floating-point numbers.
 */
import type { AddressRef } from './address.js';

/**
 * `a` with `v` appended: the array itself, or a new exact-size literal while it holds fewer than two elements (a
 * push() onto an array of 0 or 1 elements reserves 17 slots, and most detector keys see one or two events).
 */
export function appended<T>(a: T[], v: T): T[] {
  if (a.length === 0) return [v];
  if (a.length === 1) return [a[0] as T, v];
  a.push(v);
  return a;
}

/** The arrays of a window without events (shared, never written: a window gets its own on its first event). */
const NO_EVENTS: readonly number[] = [];
const NO_SOURCES: readonly AddressRef[] = [];

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
   * The running figures (see {@link EVENTS}), then per event, in arrival order, three numbers: capture time (epoch
   * ms), packets sent, replies. Empty before the first event.
   */
  private ev = NO_EVENTS as number[];
  /** Source address of each event (address.ts `addressRef`), when kept. */
  private src = NO_SOURCES as AddressRef[];
  /**
   * Events `[0, reported)` have been reported. Reporting marks every event of the window and later ones are appended,
   * so the reported events are always a prefix.
   */
  private reported = 0;

  /** @param keepSources Whether {@link bySource} is wanted (else the sources are not kept). */
  constructor(private readonly keepSources = true) {}

  get length(): number {
    return this.ev.length === 0 ? 0 : (this.ev.length - EVENTS) / 3;
  }

  /** Packets sent within the window (after {@link evict}). */
  get sentInWindow(): number {
    return this.ev.length === 0 ? 0 : (this.ev[SENT] as number);
  }

  get repliesInWindow(): number {
    return this.ev.length === 0 ? 0 : (this.ev[REPLIES] as number);
  }

  push(t: number, sent: number, replies: number, src: AddressRef): void {
    // Exact-size literals for the first two events (see `appended`).
    let ev = this.ev;
    if (ev.length === 0) ev = this.ev = [-Infinity, Infinity, 0, 0, t, sent, replies];
    else if (ev.length === EVENTS + 3) {
      ev = this.ev = [ev[0] as number, ev[1] as number, ev[2] as number, ev[3] as number, ev[4] as number, ev[5] as number, ev[6] as number, t, sent, replies];
    } else ev.push(t, sent, replies);
    if (this.keepSources) this.src = appended(this.src, src);
    if (t > (ev[NEWEST] as number)) ev[NEWEST] = t;
    if (t < (ev[OLDEST] as number)) ev[OLDEST] = t;
    ev[SENT] = (ev[SENT] as number) + sent;
    ev[REPLIES] = (ev[REPLIES] as number) + replies;
  }

  /** Drops the events older than the newest one minus `windowMs`. */
  evict(windowMs: number): void {
    const { ev, src } = this;
    if (ev.length === 0) return;
    const cutoff = (ev[NEWEST] as number) - windowMs;
    if (!((ev[OLDEST] as number) < cutoff)) return;
    const n = (ev.length - EVENTS) / 3;
    let kept = 0;
    let reportedDropped = 0;
    for (let i = 0; i < n; i++) {
      const at = EVENTS + 3 * i;
      if ((ev[at] as number) < cutoff) {
        if (i < this.reported) reportedDropped++;
        continue;
      }
      if (kept !== i) {
        const to = EVENTS + 3 * kept;
        ev[to] = ev[at] as number;
        ev[to + 1] = ev[at + 1] as number;
        ev[to + 2] = ev[at + 2] as number;
        if (this.keepSources) src[kept] = src[i] as AddressRef;
      }
      kept++;
    }
    ev.length = EVENTS + 3 * kept;
    if (this.keepSources) src.length = kept;
    this.reported -= reportedDropped;
    let oldest = Infinity;
    let sent = 0;
    let replies = 0;
    for (let at = EVENTS; at < ev.length; at += 3) {
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
    for (let i = 0; i < this.src.length; i++) {
      const s = this.src[i] as AddressRef;
      out.set(s, (out.get(s) ?? 0) + (this.ev[EVENTS + 3 * i + 1] as number));
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
      const ti = this.ev[EVENTS + 3 * i] as number;
      sent += this.ev[EVENTS + 3 * i + 1] as number;
      if (ti < first) first = ti;
      if (ti > last) last = ti;
    }
    const count = n - this.reported;
    this.reported = n;
    return { count, sent, first, last };
  }
}
