/**
 * The probes of one port-scan source within its sliding window: one array of numbers (three per probe) and one of
 * destinations, in arrival order (no object per probe), and, once the source has enough probes to matter,
 * per-destination and per-service tallies kept up to date as probes arrive and leave, so the detector can tell
 * without a pass over the window that no host or service can make a finding.
 */
import type { AddressRef } from './address.js';
import { appended } from './event-window.js';

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

/** Service numbers (`port * 256 + protocol`) are integers below this; a (destination, service) key is a number. */
const SERVICES = 0x1000000;

/** The arrays of a window without probes (shared, never written: a window gets its own on its first probe). */
const NO_NUMBERS: readonly number[] = [];
const NO_ADDRESSES: readonly AddressRef[] = [];

export class ProbeWindow {
  /**
   * Per probe, in arrival order, three numbers: first-seen time (epoch ms), service (`port * 256 + protocol`) and
   * flags. One array instead of three: most sources send one or two probes.
   */
  private ev = NO_NUMBERS as number[];
  /** Destination address of each probe (address.ts `addressRef`). Grows through `appended` (event-window.ts). */
  dst = NO_ADDRESSES as AddressRef[];
  private newest = -Infinity;
  private oldest = Infinity;
  /** Null until {@link tallies} is first asked for. */
  private byHost: Map<AddressRef, HostTally> | null = null;
  private byService: Map<number, Tally> | null = null;
  /** Probes per (destination, service), keyed `destination id * SERVICES + service` (a string for odd services). */
  private pairs: Map<number | string, number> | null = null;
  /** Destination ids free for reuse (null until the tallies start), and the next new one. */
  private freeIds: number[] | null = null;
  private nextId = 0;
  /** Destinations with at least `minServices` distinct services, and services with at least `minHosts` destinations. */
  private hostsAtMin = 0;
  private servicesAtMin = 0;

  /**
   * `minServices` and `minHosts`: the distinct counts a destination or a service needs to matter (the detector's
   * thresholds), counted as probes come and go so that {@link mayMatch} needs no pass over the tallies.
   */
  constructor(
    private readonly minServices = 0,
    private readonly minHosts = 0,
  ) {}

  /**
   * False when no destination has `minServices` distinct services and no service `minHosts` destinations in the
   * window (then no tally passes those thresholds); true otherwise, and before the tallies start.
   */
  mayMatch(): boolean {
    return this.byHost === null || this.hostsAtMin > 0 || this.servicesAtMin > 0;
  }

  get length(): number {
    return this.dst.length;
  }

  /** First-seen time of probe `i`. */
  time(i: number): number {
    return this.ev[3 * i] as number;
  }

  /** `port * 256 + protocol` of probe `i`. */
  service(i: number): number {
    return this.ev[3 * i + 1] as number;
  }

  /** Flags of probe `i`. */
  flags(i: number): number {
    return this.ev[3 * i + 2] as number;
  }

  /** Sets `flag` on probe `i`. */
  mark(i: number, flag: number): void {
    this.ev[3 * i + 2] = (this.ev[3 * i + 2] as number) | flag;
  }

  push(t: number, dst: AddressRef, service: number, unanswered: boolean): void {
    const flags = unanswered ? UNANSWERED : 0;
    // Exact-size literals for the first two probes (see event-window.ts `appended`).
    const ev = this.ev;
    if (ev.length === 0) this.ev = [t, service, flags];
    else if (ev.length === 3) this.ev = [ev[0] as number, ev[1] as number, ev[2] as number, t, service, flags];
    else ev.push(t, service, flags);
    this.dst = appended(this.dst, dst);
    if (t > this.newest) this.newest = t;
    if (t < this.oldest) this.oldest = t;
    if (this.byHost) this.count(this.dst.length - 1, 1);
  }

  /** Keeps the `max` latest arrivals. */
  trimTo(max: number): void {
    const drop = this.dst.length - max;
    if (drop <= 0) return;
    if (this.byHost) for (let i = 0; i < drop; i++) this.count(i, -1);
    this.ev.splice(0, 3 * drop);
    this.dst.splice(0, drop);
    this.newest = -Infinity;
    this.oldest = Infinity;
    for (let i = 0; i < this.ev.length; i += 3) {
      const ti = this.ev[i] as number;
      if (ti > this.newest) this.newest = ti;
      if (ti < this.oldest) this.oldest = ti;
    }
  }

  /** Drops the probes older than the newest one minus `windowMs` (order kept). */
  evict(windowMs: number): void {
    const cutoff = this.newest - windowMs;
    if (!(this.oldest < cutoff)) return;
    const { ev, dst } = this;
    const n = dst.length;
    let kept = 0;
    for (let i = 0; i < n; i++) {
      if ((ev[3 * i] as number) < cutoff) {
        if (this.byHost) this.count(i, -1);
        continue;
      }
      if (kept !== i) {
        ev[3 * kept] = ev[3 * i] as number;
        ev[3 * kept + 1] = ev[3 * i + 1] as number;
        ev[3 * kept + 2] = ev[3 * i + 2] as number;
        dst[kept] = dst[i] as AddressRef;
      }
      kept++;
    }
    ev.length = 3 * kept;
    dst.length = kept;
    this.oldest = Infinity;
    for (let i = 0; i < ev.length; i += 3) if ((ev[i] as number) < this.oldest) this.oldest = ev[i] as number;
  }

  /** Per-destination and per-service tallies of the probes in the window (built on first use, then kept). */
  tallies(): { byHost: ReadonlyMap<AddressRef, Tally>; byService: ReadonlyMap<number, Tally> } {
    if (!this.byHost || !this.byService) {
      this.byHost = new Map();
      this.byService = new Map();
      this.pairs = new Map();
      this.freeIds = [];
      for (let i = 0; i < this.dst.length; i++) this.count(i, 1);
    }
    return { byHost: this.byHost, byService: this.byService };
  }

  /** Adds (`by` 1) or removes (-1) probe `i` in the tallies. */
  private count(i: number, by: 1 | -1): void {
    const byHost = this.byHost as Map<AddressRef, HostTally>;
    const byService = this.byService as Map<number, Tally>;
    const pairs = this.pairs as Map<number | string, number>;
    const freeIds = this.freeIds as number[];
    const dst = this.dst[i] as AddressRef;
    const svc = this.ev[3 * i + 1] as number;
    const unanswered = (this.ev[3 * i + 2] as number) & UNANSWERED ? by : 0;
    let h = byHost.get(dst);
    if (!h) byHost.set(dst, (h = { probes: 0, unanswered: 0, distinct: 0, id: freeIds.pop() ?? this.nextId++ }));
    let s = byService.get(svc);
    if (!s) byService.set(svc, (s = { probes: 0, unanswered: 0, distinct: 0 }));
    h.probes += by;
    h.unanswered += unanswered;
    s.probes += by;
    s.unanswered += unanswered;
    const key = Number.isInteger(svc) && svc >= 0 && svc < SERVICES ? h.id * SERVICES + svc : `${h.id}:${svc}`;
    const v = (pairs.get(key) ?? 0) + by;
    if (v === 0) {
      pairs.delete(key);
      if (h.distinct-- === this.minServices) this.hostsAtMin--;
      if (s.distinct-- === this.minHosts) this.servicesAtMin--;
    } else {
      pairs.set(key, v);
      if (v === 1 && by === 1) {
        if (++h.distinct === this.minServices) this.hostsAtMin++;
        if (++s.distinct === this.minHosts) this.servicesAtMin++;
      }
    }
    if (h.probes === 0) {
      byHost.delete(dst);
      freeIds.push(h.id);
    }
    if (s.probes === 0) byService.delete(svc);
  }
}
