/**
 * The probes of one port-scan source within its sliding window: one Float64Array (four numbers per probe, destination
 * included) in arrival order (no object per probe), and, once the source has enough probes to matter,
 * per-destination and per-service tallies kept up to date as probes arrive and leave, so the detector can tell
 * without a pass over the window that no host or service can make a finding.
 */
import type { AddressRef } from './address.js';
import { BLOCK_CLASSES, BlockStore } from './block-store.js';
import { PairCounts } from './pair-counts.js';

/** Probe flags. */
export const UNANSWERED = 1;
export const REPORTED_VERTICAL = 2;
export const REPORTED_HORIZONTAL = 4;

/** In-window probes of one destination (or one service): how many, how many unanswered, towards how many others. */
export interface Tally {
  probes: number;
  unanswered: number;
  /** Distinct services (for a destination) or destinations (for a service) among them. */
  distinct: number;
}

/** A destination's tally and its number in the (destination, service) keys. */
interface HostTally extends Tally {
  id: number;
}

/** Service numbers (`port * 256 + protocol`) are integers below this: their (destination, service) pairs are counted in a PairCounts. */
const SERVICES = 0x1000000;

/** The texts of a window without IPv6 destinations (shared, never written: a window gets its own on its first one). */
const NO_TEXTS: readonly string[] = [];

/**
 * Positions in a window's block: the newest and the oldest probe time (numbers in an array are not boxed: two number
 * fields were two heap objects per source), then per probe its first-seen time, service, flags and destination.
 */
const NEWEST = 0;
const OLDEST = 1;
const PROBES = 2;
const STRIDE = 4;

/** The blocks of a detector's small probe windows (see block-store.ts). */
export class ProbeStore extends BlockStore {
  constructor() {
    super(PROBES, STRIDE);
  }
}

export class ProbeWindow {
  /**
   * The numbers of the window from `off` on: the newest and oldest probe time (see {@link PROBES}), then per probe, in
   * arrival order, four numbers: first-seen time (epoch ms), service (`port * 256 + protocol`), flags, and the
   * destination (address.ts `addressRef`) when it is a number, else NaN. One array instead of one per field: most
   * sources send one or two probes; and an IPv4 destination outside the small-integer range (64.0.0.0 to
   * 191.255.255.255) was a heap object per probe in an array of destinations. Up to 32 probes, a block of a chunk of
   * the {@link ProbeStore} (`cls` its size class); past that, a typed array of the window's own (`cls` -1, `off` 0),
   * grown by doubling (see {@link push}): a busy source's probes stay outside the JS heap. Empty before the first
   * probe.
   */
  private ev: Float64Array;
  private off = 0;
  /** Size class of the window's block in the store (room for `2 ** cls` probes); -1 when `ev` is its own. */
  private cls = -1;
  /** Numbers of the window in use (0 before the first probe); the rest of its block is room for the next probes. */
  private used = 0;
  /** Destinations that are text (IPv6 addresses), by probe, where `ev` has NaN (empty until one arrives; holes elsewhere). */
  private texts = NO_TEXTS as string[];
  /** Null until {@link tallies} is first asked for (most windows never are: their fields stay off the window). */
  private tally: Tallies | null = null;

  /**
   * `minServices` and `minHosts`: the distinct counts a destination or a service needs to matter (the detector's
   * thresholds), counted as probes come and go so that {@link mayMatch} needs no pass over the tallies. `store`: where
   * the blocks of small windows come from (one per detector; see {@link release}).
   */
  constructor(
    private readonly minServices = 0,
    private readonly minHosts = 0,
    private readonly store = new ProbeStore(),
  ) {
    this.ev = store.allocated;
  }

  /**
   * False when no destination has `minServices` distinct services and no service `minHosts` destinations in the
   * window (then no tally passes those thresholds); true otherwise, and before the tallies start.
   */
  mayMatch(): boolean {
    const t = this.tally;
    return t === null || t.hostsAtMin > 0 || t.servicesAtMin > 0;
  }

  get length(): number {
    return this.used === 0 ? 0 : (this.used - PROBES) / STRIDE;
  }

  /** First-seen time of probe `i`. */
  time(i: number): number {
    return this.ev[this.off + PROBES + STRIDE * i] as number;
  }

  /** `port * 256 + protocol` of probe `i`. */
  service(i: number): number {
    return this.ev[this.off + PROBES + STRIDE * i + 1] as number;
  }

  /** Flags of probe `i`. */
  flags(i: number): number {
    return this.ev[this.off + PROBES + STRIDE * i + 2] as number;
  }

  /** Destination of probe `i` (address.ts `addressRef`). */
  dst(i: number): AddressRef {
    const d = this.ev[this.off + PROBES + STRIDE * i + 3] as number;
    return d === d ? d : (this.texts[i] as string);
  }

  /** Sets `flag` on probe `i`. */
  mark(i: number, flag: number): void {
    const at = this.off + PROBES + STRIDE * i + 2;
    this.ev[at] = (this.ev[at] as number) | flag;
  }

  push(t: number, dst: AddressRef, service: number, unanswered: boolean): void {
    // The common case, kept small enough for the compiler to inline into the caller (the arguments of a call that is
    // not inlined are boxed: a heap number per probe for its time): a numeric destination into a window with room.
    const at = this.used;
    if (typeof dst !== 'number' || at === 0 || (this.cls >= 0 ? at === this.store.size(this.cls) : at === this.ev.length)) {
      this.pushSlow(t, dst, service, unanswered);
      return;
    }
    const ev = this.ev;
    const off = this.off;
    const to = off + at;
    ev[to] = t;
    ev[to + 1] = service;
    ev[to + 2] = unanswered ? UNANSWERED : 0;
    ev[to + 3] = dst;
    this.used = at + STRIDE;
    if (t > (ev[off + NEWEST] as number)) ev[off + NEWEST] = t;
    if (t < (ev[off + OLDEST] as number)) ev[off + OLDEST] = t;
    if (this.tally) this.count(this.length - 1, 1);
  }

  /** {@link push} in every case: a text destination, the window's first probe, or a full block. */
  private pushSlow(t: number, dst: AddressRef, service: number, unanswered: boolean): void {
    const flags = unanswered ? UNANSWERED : 0;
    const d = typeof dst === 'number' ? dst : Number.NaN;
    if (typeof dst !== 'number') {
      if (this.texts === NO_TEXTS) this.texts = [];
      this.texts[this.length] = dst;
    }
    let ev = this.ev;
    let off = this.off;
    let at = this.used;
    if (at === 0) {
      off = this.off = this.store.alloc((this.cls = 0));
      ev = this.ev = this.store.allocated;
      ev[off + NEWEST] = -Infinity;
      ev[off + OLDEST] = Infinity;
      at = PROBES;
    } else if (this.cls >= 0 ? at === this.store.size(this.cls) : at === ev.length) this.grow();
    ev = this.ev;
    off = this.off;
    const to = off + at;
    ev[to] = t;
    ev[to + 1] = service;
    ev[to + 2] = flags;
    ev[to + 3] = d;
    this.used = at + STRIDE;
    if (t > (ev[off + NEWEST] as number)) ev[off + NEWEST] = t;
    if (t < (ev[off + OLDEST] as number)) ev[off + OLDEST] = t;
    if (this.tally) this.count(this.length - 1, 1);
  }

  /**
   * Room for twice the probes: the store's block of the next size, or past the largest one a typed array of the
   * window's own (its numbers live outside the JS heap, so the collector neither copies nor scans them; growing a plain
   * array by half each time allocated three times its final size on the heap). Sizes stay `PROBES` plus whole
   * probes, so a window is full exactly when `used` is its size.
   */
  private grow(): void {
    const used = this.used;
    const next = this.store.grow(this.ev, this.off, used, this.cls);
    this.release();
    this.cls = next;
    this.ev = this.store.allocated;
    this.off = this.store.grownAt;
    this.used = used;
  }

  /** Hands the window's block back to the store (its source is forgotten: the window is not used again). */
  release(): void {
    if (this.cls >= 0) this.store.free(this.cls, this.ev, this.off);
    this.cls = -1;
  }

  /** Keeps the `max` latest arrivals. */
  trimTo(max: number): void {
    if (this.length > max) this.trim(this.length - max);
  }

  /** Drops the `drop` oldest arrivals (kept apart from {@link trimTo} so that the test stays small enough to inline). */
  private trim(drop: number): void {
    if (this.tally) for (let i = 0; i < drop; i++) this.count(i, -1);
    const ev = this.ev;
    const off = this.off;
    ev.copyWithin(off + PROBES, off + PROBES + STRIDE * drop, off + this.used);
    this.used -= STRIDE * drop;
    if (this.texts !== NO_TEXTS) this.texts.splice(0, drop);
    let newest = -Infinity;
    let oldest = Infinity;
    for (let at = off + PROBES; at < off + this.used; at += STRIDE) {
      const ti = ev[at] as number;
      if (ti > newest) newest = ti;
      if (ti < oldest) oldest = ti;
    }
    ev[off + NEWEST] = newest;
    ev[off + OLDEST] = oldest;
  }

  /** Drops the probes older than the newest one minus `windowMs` (order kept). */
  evict(windowMs: number): void {
    const { ev, off, texts } = this;
    if (this.used === 0) return;
    const cutoff = (ev[off + NEWEST] as number) - windowMs;
    if (!((ev[off + OLDEST] as number) < cutoff)) return;
    const n = this.length;
    let kept = 0;
    for (let i = 0; i < n; i++) {
      const at = off + PROBES + STRIDE * i;
      if ((ev[at] as number) < cutoff) {
        if (this.tally) this.count(i, -1);
        continue;
      }
      if (kept !== i) {
        const to = off + PROBES + STRIDE * kept;
        for (let f = 0; f < STRIDE; f++) ev[to + f] = ev[at + f] as number;
        if (texts !== NO_TEXTS) texts[kept] = texts[i] as string;
      }
      kept++;
    }
    this.used = PROBES + STRIDE * kept;
    if (texts !== NO_TEXTS && texts.length > kept) texts.length = kept;
    let oldest = Infinity;
    for (let at = off + PROBES; at < off + this.used; at += STRIDE) if ((ev[at] as number) < oldest) oldest = ev[at] as number;
    ev[off + OLDEST] = oldest;
    // Room for four times the probes left in an array of its own: give it back (a burst has left the window).
    if (this.cls < 0 && ev.length > 4 * this.used && ev.length > 64) this.ev = ev.slice(0, PROBES + 2 * (this.used - PROBES));
  }

  /** Per-destination and per-service tallies of the probes in the window (built on first use, then kept). */
  tallies(): { readonly byHost: ReadonlyMap<AddressRef, Tally>; readonly byService: ReadonlyMap<number, Tally> } {
    if (this.tally === null) {
      this.tally = new Tallies();
      for (let i = 0; i < this.length; i++) this.count(i, 1);
    }
    return this.tally;
  }

  /** Adds (`by` 1) or removes (-1) probe `i` in the tallies. */
  private count(i: number, by: 1 | -1): void {
    const t = this.tally as Tallies;
    const { byHost, byService, freeIds } = t;
    const dst = this.dst(i);
    const svc = this.service(i);
    const unanswered = this.flags(i) & UNANSWERED ? by : 0;
    let h = byHost.get(dst);
    if (!h) byHost.set(dst, (h = { probes: 0, unanswered: 0, distinct: 0, id: freeIds.pop() ?? t.nextId++ }));
    let s = byService.get(svc);
    if (!s) byService.set(svc, (s = { probes: 0, unanswered: 0, distinct: 0 }));
    h.probes += by;
    h.unanswered += unanswered;
    s.probes += by;
    s.unanswered += unanswered;
    const v = Number.isInteger(svc) && svc >= 0 && svc < SERVICES ? t.pairs.add(h.id, svc, by) : t.addOdd(`${h.id}:${svc}`, by);
    if (v === 0) {
      if (h.distinct-- === this.minServices) t.hostsAtMin--;
      if (s.distinct-- === this.minHosts) t.servicesAtMin--;
    } else if (v === 1 && by === 1) {
      if (++h.distinct === this.minServices) t.hostsAtMin++;
      if (++s.distinct === this.minHosts) t.servicesAtMin++;
    }
    if (h.probes === 0) {
      byHost.delete(dst);
      freeIds.push(h.id);
    }
    if (s.probes === 0) byService.delete(svc);
  }
}

/** A window's per-destination and per-service tallies (see {@link ProbeWindow.tallies}). */
class Tallies {
  readonly byHost = new Map<AddressRef, HostTally>();
  readonly byService = new Map<number, Tally>();
  /** Probes per (destination id, service) (pair-counts.ts); per `id:service` text for odd services (null until one). */
  readonly pairs = new PairCounts();
  private oddPairs: Map<string, number> | null = null;
  /** Destination ids free for reuse, and the next new one. */
  readonly freeIds: number[] = [];
  nextId = 0;
  /** Destinations with at least `minServices` distinct services, and services with at least `minHosts` destinations. */
  hostsAtMin = 0;
  servicesAtMin = 0;

  /** Adds `by` to the probes of an odd (destination, service) pair; returns the new count (0: dropped). */
  addOdd(key: string, by: number): number {
    const odd = (this.oddPairs ??= new Map());
    const v = (odd.get(key) ?? 0) + by;
    if (v === 0) odd.delete(key);
    else odd.set(key, v);
    return v;
  }
}
