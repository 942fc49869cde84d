/**
 * The probes of one port-scan source within its sliding window: parallel arrays in arrival order (no object per
 * probe) and, once the source has enough probes to matter, per-destination and per-service tallies kept up to date as
 * probes arrive and leave, so the detector can tell without a pass over the window that no host or service can make
 * a finding.
 */
import type { AddressRef } from './address.js';
import { appended, dropOlder } from './event-window.js';

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
  // Arrays grow through `appended` (event-window.ts).
  /** First-seen time (epoch ms) of each probe, in arrival order. */
  t = NO_NUMBERS as number[];
  /** Destination address (address.ts `addressRef`). */
  dst = NO_ADDRESSES as AddressRef[];
  /** `port * 256 + protocol`. */
  service = NO_NUMBERS as number[];
  flags = NO_NUMBERS as number[];
  private newest = -Infinity;
  private oldest = Infinity;
  /** Null until {@link tallies} is first asked for. */
  private byHost: Map<AddressRef, HostTally> | null = null;
  private byService: Map<number, Tally> | null = null;
  /** Probes per (destination, service), keyed `destination id * SERVICES + service` (a string for odd services). */
  private pairs: Map<number | string, number> | null = null;
  /** Destination ids free for reuse, and the next new one. */
  private readonly freeIds: number[] = [];
  private nextId = 0;

  get length(): number {
    return this.t.length;
  }

  push(t: number, dst: AddressRef, service: number, unanswered: boolean): void {
    const flags = unanswered ? UNANSWERED : 0;
    this.t = appended(this.t, t);
    this.dst = appended(this.dst, dst);
    this.service = appended(this.service, service);
    this.flags = appended(this.flags, flags);
    if (t > this.newest) this.newest = t;
    if (t < this.oldest) this.oldest = t;
    if (this.byHost) this.count(this.t.length - 1, 1);
  }

  /** Keeps the `max` latest arrivals. */
  trimTo(max: number): void {
    const drop = this.t.length - max;
    if (drop <= 0) return;
    if (this.byHost) for (let i = 0; i < drop; i++) this.count(i, -1);
    this.t.splice(0, drop);
    this.dst.splice(0, drop);
    this.service.splice(0, drop);
    this.flags.splice(0, drop);
    this.newest = -Infinity;
    this.oldest = Infinity;
    for (const ti of this.t) {
      if (ti > this.newest) this.newest = ti;
      if (ti < this.oldest) this.oldest = ti;
    }
  }

  /** Drops the probes older than the newest one minus `windowMs` (order kept). */
  evict(windowMs: number): void {
    const cutoff = this.newest - windowMs;
    if (!(this.oldest < cutoff)) return;
    dropOlder([this.t, this.dst, this.service, this.flags], cutoff, (i) => {
      if (this.byHost) this.count(i, -1);
    });
    this.oldest = Infinity;
    for (const ti of this.t) if (ti < this.oldest) this.oldest = ti;
  }

  /** Per-destination and per-service tallies of the probes in the window (built on first use, then kept). */
  tallies(): { byHost: ReadonlyMap<AddressRef, Tally>; byService: ReadonlyMap<number, Tally> } {
    if (!this.byHost || !this.byService) {
      this.byHost = new Map();
      this.byService = new Map();
      this.pairs = new Map();
      for (let i = 0; i < this.t.length; i++) this.count(i, 1);
    }
    return { byHost: this.byHost, byService: this.byService };
  }

  /** Adds (`by` 1) or removes (-1) probe `i` in the tallies. */
  private count(i: number, by: 1 | -1): void {
    const byHost = this.byHost as Map<AddressRef, HostTally>;
    const byService = this.byService as Map<number, Tally>;
    const pairs = this.pairs as Map<number | string, number>;
    const dst = this.dst[i] as AddressRef;
    const svc = this.service[i] as number;
    const unanswered = (this.flags[i] as number) & UNANSWERED ? by : 0;
    let h = byHost.get(dst);
    if (!h) byHost.set(dst, (h = { probes: 0, unanswered: 0, distinct: 0, id: this.freeIds.pop() ?? this.nextId++ }));
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
      h.distinct--;
      s.distinct--;
    } else {
      pairs.set(key, v);
      if (v === 1 && by === 1) {
        h.distinct++;
        s.distinct++;
      }
    }
    if (h.probes === 0) {
      byHost.delete(dst);
      this.freeIds.push(h.id);
    }
    if (s.probes === 0) byService.delete(svc);
  }
}
