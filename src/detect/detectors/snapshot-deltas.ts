/**
 * Snapshots of a long-lived flow repeat its id with cumulative counters; detectors that add up packets need the
 * increase since the previous record of the same flow. Bounded: the least recently updated flows are forgotten.
 */
import type { FlowColumns } from '../../native/flow-batch.js';
import { FLOW_COLUMN as C, SNAPSHOT_REASON } from '../../native/flow-columns.js';
import { LruTable, reusableKey, type TableKey } from '../lru-map.js';

/** Counter increases of one record over the previous record of the same flow. */
export interface FlowDelta {
  fwdPackets: number;
  bwdPackets: number;
  fwdSyn: number;
  /** Capture time span (µs) the increase covers. */
  spanUs: number;
}

/**
 * Numbers per table slot in {@link SnapshotDeltas.counters}: the previous snapshot's cumulative packets sent, replies
 * and SYNs sent, and its last-seen time (epoch ms).
 */
const FIELDS = 4;
const BWD = 1;
const SYN = 2;
const LAST_SEEN = 3;
/** Buckets of {@link SnapshotDeltas.present} (a power of two). */
const ID_BUCKETS = 4096;

export class SnapshotDeltas {
  /**
   * The flows with a snapshot, keyed by flow id (`a`) and start time (`b`, epoch ms): ids restart with a new capture
   * session. The value is the flow id (for {@link present}); an entry's figures are in {@link counters} at its slot.
   */
  private readonly seen = new LruTable<number>();
  /**
   * Entries of `seen` per flow id modulo {@link ID_BUCKETS}: a finished record whose bucket is empty had no snapshot
   * kept, and needs no lookup (on the bench input, 36,500 of the SYN flood's 51,700 records, 22,500 of the packet
   * flood's 45,700; a lookup hashes the id and the start time).
   */
  private readonly present = new Uint32Array(ID_BUCKETS);
  private readonly forget = (id: number): void => {
    this.present[id & (ID_BUCKETS - 1)]--;
  };
  private readonly key: TableKey = reusableKey();
  /**
   * {@link FIELDS} numbers per slot of `seen` (a typed array: an object per flow, with boxed fields, lived as long as
   * the flow's entry).
   */
  private counters = new Float64Array(0);

  private readonly out: FlowDelta = { fwdPackets: 0, bwdPackets: 0, fwdSyn: 0, spanUs: 0 };

  constructor(private readonly max: number) {}

  /**
   * The increase carried by flow `i` of batch `c`; finished records forget their flow. Returns one object this
   * instance reuses: read it before the next call.
   */
  delta(c: FlowColumns, i: number): Readonly<FlowDelta> {
    const { cols, n } = c;
    const d = this.out;
    const fwdPackets = cols[C.fwdPackets * n + i] as number;
    const bwdPackets = cols[C.bwdPackets * n + i] as number;
    const fwdSyn = cols[C.fwdSyn * n + i] as number;
    d.fwdPackets = fwdPackets;
    d.bwdPackets = bwdPackets;
    d.fwdSyn = fwdSyn;
    d.spanUs = cols[C.durationUs * n + i] as number;
    const snapshot = cols[C.endReason * n + i] === SNAPSHOT_REASON;
    const id = cols[C.id * n + i] as number;
    if (!snapshot && this.present[id & (ID_BUCKETS - 1)] === 0) return d;
    const lastSeenMs = c.lastSeenMs(i);
    const key = this.key;
    key.a = id;
    key.b = c.firstSeenMs(i);
    const slot = this.seen.find(key);
    const at = slot * FIELDS;
    const prev = this.counters;
    if (slot >= 0) {
      d.fwdPackets = Math.max(0, fwdPackets - (prev[at] as number));
      d.bwdPackets = Math.max(0, bwdPackets - (prev[at + BWD] as number));
      d.fwdSyn = Math.max(0, fwdSyn - (prev[at + SYN] as number));
      d.spanUs = Math.max(0, (lastSeenMs - (prev[at + LAST_SEEN] as number)) * 1000);
    }
    if (snapshot) {
      let s = slot;
      if (s >= 0) this.seen.use(s);
      else {
        s = this.seen.add(key, id);
        this.present[id & (ID_BUCKETS - 1)]++;
      }
      this.keep(s, fwdPackets, bwdPackets, fwdSyn, lastSeenMs);
      this.seen.cap(this.max, this.forget);
    } else if (slot >= 0) {
      this.seen.remove(slot);
      this.forget(id);
    }
    return d;
  }

  private keep(slot: number, fwdPackets: number, bwdPackets: number, fwdSyn: number, lastSeenMs: number): void {
    const at = slot * FIELDS;
    if (at + FIELDS > this.counters.length) {
      const grown = new Float64Array(Math.max(16 * FIELDS, this.counters.length * 2, at + FIELDS));
      grown.set(this.counters);
      this.counters = grown;
    }
    const to = this.counters;
    to[at] = fwdPackets;
    to[at + BWD] = bwdPackets;
    to[at + SYN] = fwdSyn;
    to[at + LAST_SEEN] = lastSeenMs;
  }
}
