/**
 * Snapshots of a long-lived flow repeat its id with cumulative counters; detectors that add up packets need the
 * increase since the previous record of the same flow. Bounded: the least recently updated flows are forgotten.
 */
import type { FlowRecord } from '../../native/flow-record.js';
import { touch } from '../finding.js';

/** Counter increases of one record over the previous record of the same flow. */
export interface FlowDelta {
  fwdPackets: number;
  bwdPackets: number;
  fwdSyn: number;
  /** Capture time span (µs) the increase covers. */
  spanUs: number;
}

interface Seen {
  id: number;
  fwdPackets: number;
  bwdPackets: number;
  fwdSyn: number;
  lastSeenMs: number;
}

export class SnapshotDeltas {
  /** Keyed by flow id and start time: ids restart with a new capture session. */
  private readonly seen = new Map<string, Seen>();
  /** Entries of `seen` per flow id: a finished record whose id has none had no snapshot (no key to build). */
  private readonly ids = new Map<number, number>();

  constructor(private readonly max: number) {}

  /** The increase carried by `f`; finished records forget their flow. */
  delta(f: FlowRecord): FlowDelta {
    const snapshot = f.endReason === 'snapshot';
    if (!snapshot && !this.ids.has(f.id)) return { fwdPackets: f.fwdPackets, bwdPackets: f.bwdPackets, fwdSyn: f.fwdSyn, spanUs: f.durationUs };
    const key = `${f.id}@${f.firstSeenMs}`;
    const prev = this.seen.get(key);
    const d: FlowDelta = prev
      ? {
          fwdPackets: Math.max(0, f.fwdPackets - prev.fwdPackets),
          bwdPackets: Math.max(0, f.bwdPackets - prev.bwdPackets),
          fwdSyn: Math.max(0, f.fwdSyn - prev.fwdSyn),
          spanUs: Math.max(0, (f.lastSeenMs - prev.lastSeenMs) * 1000),
        }
      : { fwdPackets: f.fwdPackets, bwdPackets: f.bwdPackets, fwdSyn: f.fwdSyn, spanUs: f.durationUs };
    if (snapshot) {
      if (!prev) this.ids.set(f.id, (this.ids.get(f.id) ?? 0) + 1);
      touch(this.seen, key, { id: f.id, fwdPackets: f.fwdPackets, bwdPackets: f.bwdPackets, fwdSyn: f.fwdSyn, lastSeenMs: f.lastSeenMs });
      this.cap();
    } else if (prev) {
      this.seen.delete(key);
      this.forgetId(prev.id);
    }
    return d;
  }

  /** capMap(this.seen, this.max), keeping `ids` in step. */
  private cap(): void {
    if (this.seen.size <= this.max) return;
    let excess = this.seen.size - this.max;
    for (const [key, entry] of this.seen) {
      if (excess-- <= 0) break;
      this.seen.delete(key);
      this.forgetId(entry.id);
    }
  }

  private forgetId(id: number): void {
    const n = (this.ids.get(id) ?? 0) - 1;
    if (n > 0) this.ids.set(id, n);
    else this.ids.delete(id);
  }
}
