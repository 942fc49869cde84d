/**
 * The probes of one port-scan source within its sliding window: parallel arrays in arrival order (no object per
 * probe) and, once the source has enough probes to matter, per-destination and per-service tallies kept up to date as
 * probes arrive and leave, so the detector can tell without a pass over the window that no host or service can make
 * a finding.
 */
import { dropOlder } from './event-window.js';

/** Probe flags. */
export const UNANSWERED = 1;
export const REPORTED_VERTICAL = 2;
export const REPORTED_HORIZONTAL = 4;

/** In-window probes of one destination (or one service): how many, how many unanswered, and per other side. */
export interface Tally<K> {
  probes: number;
  unanswered: number;
  /** Probes per service (for a destination) or per destination (for a service). */
  distinct: Map<K, number>;
}

export class ProbeWindow {
  // Arrays start as one-element literals on the first push (see EventWindow).
  /** First-seen time (epoch ms) of each probe, in arrival order. */
  t: number[] = [];
  /** Destination address key (address.ts `addressKey`). */
  dst: string[] = [];
  /** `port * 256 + protocol`. */
  service: number[] = [];
  flags: number[] = [];
  private newest = -Infinity;
  private oldest = Infinity;
  /** Null until {@link tallies} is first asked for. */
  private byHost: Map<string, Tally<number>> | null = null;
  private byService: Map<number, Tally<string>> | null = null;

  get length(): number {
    return this.t.length;
  }

  push(t: number, dst: string, service: number, unanswered: boolean): void {
    const flags = unanswered ? UNANSWERED : 0;
    if (this.t.length === 0) {
      this.t = [t];
      this.dst = [dst];
      this.service = [service];
      this.flags = [flags];
    } else {
      this.t.push(t);
      this.dst.push(dst);
      this.service.push(service);
      this.flags.push(flags);
    }
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
  tallies(): { byHost: Map<string, Tally<number>>; byService: Map<number, Tally<string>> } {
    if (!this.byHost || !this.byService) {
      this.byHost = new Map();
      this.byService = new Map();
      for (let i = 0; i < this.t.length; i++) this.count(i, 1);
    }
    return { byHost: this.byHost, byService: this.byService };
  }

  private count(i: number, by: 1 | -1): void {
    const unanswered = (this.flags[i] as number) & UNANSWERED ? by : 0;
    tally(this.byHost as Map<string, Tally<number>>, this.dst[i] as string, this.service[i] as number, by, unanswered);
    tally(this.byService as Map<number, Tally<string>>, this.service[i] as number, this.dst[i] as string, by, unanswered);
  }
}

/** Adds (`by` 1) or removes (-1) one probe of `key` towards `other` in `tallies`. */
function tally<K, O>(tallies: Map<K, Tally<O>>, key: K, other: O, by: 1 | -1, unanswered: number): void {
  let e = tallies.get(key);
  if (!e) tallies.set(key, (e = { probes: 0, unanswered: 0, distinct: new Map() }));
  e.probes += by;
  e.unanswered += unanswered;
  const v = (e.distinct.get(other) ?? 0) + by;
  if (v === 0) e.distinct.delete(other);
  else e.distinct.set(other, v);
  if (e.probes === 0) tallies.delete(key);
}
