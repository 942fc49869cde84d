/**
 * Snapshots of a long-lived flow repeat its id with cumulative counters; detectors that add up packets need the
 * increase since the previous record of the same flow. Bounded: the least recently updated flows are forgotten.
 */
import type { FlowRecord } from '../../native/flow-record.js';
import { capMap, touch } from '../finding.js';

/** Counter increases of one record over the previous record of the same flow. */
export interface FlowDelta {
  fwdPackets: number;
  bwdPackets: number;
  fwdSyn: number;
  /** Capture time span (µs) the increase covers. */
  spanUs: number;
}

interface Seen {
  fwdPackets: number;
  bwdPackets: number;
  fwdSyn: number;
  lastSeenMs: number;
}

export class SnapshotDeltas {
  /** Keyed by flow id and start time: ids restart with a new capture session. */
  private readonly seen = new Map<string, Seen>();

  constructor(private readonly max: number) {}

  /** The increase carried by `f`; finished records forget their flow. */
  delta(f: FlowRecord): FlowDelta {
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
    if (f.endReason === 'snapshot') {
      touch(this.seen, key, { fwdPackets: f.fwdPackets, bwdPackets: f.bwdPackets, fwdSyn: f.fwdSyn, lastSeenMs: f.lastSeenMs });
      capMap(this.seen, this.max);
    } else if (prev) {
      this.seen.delete(key);
    }
    return d;
  }
}
