/**
 * Snapshots of a long-lived flow repeat its id with cumulative counters; detectors that add up packets need the
 * increase since the previous record of the same flow. Bounded: the least recently updated flows are forgotten.
 */
import { FLOW_COLUMN as C, type FlowColumns, SNAPSHOT_REASON } from '../../native/flow-batch.js';
import { LruTable, type TableKey } from '../lru-map.js';

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
  /** Keyed by flow id (`a`) and start time (`b`, epoch ms): ids restart with a new capture session. */
  private readonly seen = new LruTable<Seen>();
  private readonly key: TableKey = { a: 0, b: 0, text: null };
  /** Entries of `seen` per flow id: a finished record whose id has none had no snapshot (no key to build). */
  private readonly ids = new Map<number, number>();

  private readonly out: FlowDelta = { fwdPackets: 0, bwdPackets: 0, fwdSyn: 0, spanUs: 0 };
  private readonly evicted = (entry: Seen): void => this.forgetId(entry.id);

  constructor(private readonly max: number) {}

  /**
   * The increase carried by flow `i` of batch `c`; finished records forget their flow. Returns one object this
   * instance reuses: read it before the next call.
   */
  delta(c: FlowColumns, i: number): Readonly<FlowDelta> {
    const { cols, n } = c;
    const d = this.out;
    const id = cols[C.id * n + i] as number;
    const fwdPackets = cols[C.fwdPackets * n + i] as number;
    const bwdPackets = cols[C.bwdPackets * n + i] as number;
    const fwdSyn = cols[C.fwdSyn * n + i] as number;
    d.fwdPackets = fwdPackets;
    d.bwdPackets = bwdPackets;
    d.fwdSyn = fwdSyn;
    d.spanUs = cols[C.durationUs * n + i] as number;
    const snapshot = cols[C.endReason * n + i] === SNAPSHOT_REASON;
    if (!snapshot && !this.ids.has(id)) return d;
    const lastSeenMs = c.lastSeenMs(i);
    const key = this.key;
    key.a = id;
    key.b = c.firstSeenMs(i);
    const slot = this.seen.find(key);
    const prev = slot < 0 ? undefined : this.seen.value(slot);
    if (prev) {
      d.fwdPackets = Math.max(0, fwdPackets - prev.fwdPackets);
      d.bwdPackets = Math.max(0, bwdPackets - prev.bwdPackets);
      d.fwdSyn = Math.max(0, fwdSyn - prev.fwdSyn);
      d.spanUs = Math.max(0, (lastSeenMs - prev.lastSeenMs) * 1000);
    }
    if (snapshot) {
      if (prev) {
        prev.fwdPackets = fwdPackets;
        prev.bwdPackets = bwdPackets;
        prev.fwdSyn = fwdSyn;
        prev.lastSeenMs = lastSeenMs;
        this.seen.use(slot);
      } else {
        this.ids.set(id, (this.ids.get(id) ?? 0) + 1);
        this.seen.add(key, { id, fwdPackets, bwdPackets, fwdSyn, lastSeenMs });
      }
      this.seen.cap(this.max, this.evicted);
    } else if (prev) {
      this.seen.remove(slot);
      this.forgetId(prev.id);
    }
    return d;
  }

  private forgetId(id: number): void {
    const n = (this.ids.get(id) ?? 0) - 1;
    if (n > 0) this.ids.set(id, n);
    else this.ids.delete(id);
  }
}
