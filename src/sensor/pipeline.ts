/**
 * The sensor pipeline: sensor flow batches -> live statistics (synchronously) -> store (flow summaries, one
 * transaction per batch) -> detection.ingest -> events. Batches are processed one at a time off the request path;
 * when storage/detection fall behind, at most `maxQueuedBatches` wait and further batches are dropped, so memory stays
 * bounded and the capture thread is never blocked. Never silently: a dropped batch's flows are counted here
 * (`droppedFlows`) and reported to detection (`skip`), whose ML stats count them as `skipped`; live statistics still
 * see them. ARP bindings (the sensor's `arp` event; layer 2 has no flows) go to `detection.ingestArp` in the same
 * queue, in arrival order; they are never dropped (at most one batch per flush of the capture core, each at most the
 * core's ARP table).
 */
import type { DetectionEngine } from '../detect/types.js';
import { emitsColumnFlows, givesBatchesBack, releaseFlowBatch, type ArpBinding } from '../native/capture.js';
import type { FlowRecord, Sensor } from '../native/types.js';
import type { Store } from '../store/database.js';
import { insertFlowBatch, pruneFlows, type FlowRetention } from '../store/repos/flow.repo.js';
import type { NewFlow } from '../store/tables/flow.table.js';

/** Dependencies of {@link SensorPipeline}. */
export interface PipelineDeps {
  sensor: Pick<Sensor, 'on' | 'off'>;
  store: Store;
  /** Null when detection is not running. `skip` is told the size of every batch dropped (see the module comment). */
  detection: (Pick<DetectionEngine, 'ingest'> & Partial<Pick<DetectionEngine, 'skip' | 'ingestArp'>>) | null;
  /** Called synchronously with every batch (live statistics). */
  onFlows?: (flows: readonly FlowRecord[]) => void;
  /**
   * Called synchronously with every batch once it is stored, before detection sees it (the EVE export: its flow records
   * precede the alerts they cause). Not called for dropped batches. Must not keep the records beyond the call.
   */
  onStored?: (flows: readonly FlowRecord[]) => void;
  /** Epoch ms now. */
  now: () => number;
  /** Flow retention: maximum age (ms) and count of stored flow summaries. */
  retention: { maxAgeMs: number; maxRows: number };
  /** Batches allowed to wait for storage/detection. Default 64. */
  maxQueuedBatches?: number;
  /** How often retention is applied, ms. Default 60000. */
  pruneIntervalMs?: number;
  log?: (message: string, err?: unknown) => void;
}

/** Counters of the pipeline (exposed for health/benchmarks and tests). */
export interface PipelineCounters {
  batches: number;
  flows: number;
  storedFlows: number;
  /** Batches dropped because `maxQueuedBatches` were waiting, and their flows (neither stored, detected nor scored). */
  droppedBatches: number;
  droppedFlows: number;
  errors: number;
}

/** Longest text kept in a flow summary's application columns. */
const MAX_TEXT = 255;

/** Longest executable path kept (Linux's PATH_MAX). */
const MAX_PATH = 4096;

/** `text` capped at {@link MAX_TEXT} characters; null when absent or empty. */
const bounded = (text: string | null | undefined): string | null => (text ? text.slice(0, MAX_TEXT) : null);

/**
 * Maps a flow record to its stored summary (with its application label, server name, Community ID and program, when
 * known).
 */
export function toFlowRow(f: FlowRecord, storedAtMs: number): NewFlow {
  return fillFlowRow(f, storedAtMs, {} as NewFlow);
}

/** {@link toFlowRow} into `row` (every column written, so a reused row keeps nothing of its last flow); returns it. */
function fillFlowRow(f: FlowRecord, storedAtMs: number, row: NewFlow): NewFlow {
  const p = f.process;
  row.flow_id = f.id;
  row.src_ip = f.srcIp;
  row.src_port = f.srcPort;
  row.dst_ip = f.dstIp;
  row.dst_port = f.dstPort;
  row.protocol = f.protocol;
  row.packets = f.packets;
  row.bytes = f.bytes;
  row.first_seen = f.firstSeen;
  row.last_seen = f.lastSeen;
  row.duration_us = Math.round(f.durationUs);
  row.end_reason = f.endReason;
  row.stored_at_ms = storedAtMs;
  row.app = bounded(f.app);
  row.server_name = bounded(f.serverName);
  row.community_id = bounded(f.communityId);
  row.process_pid = p ? p.pid : null;
  row.process_name = bounded(p?.name);
  row.process_exe = p?.exe ? p.exe.slice(0, MAX_PATH) : null;
  row.process_user = bounded(p?.user);
  row.process_uid = p ? p.uid : null;
  row.process_unit = bounded(p?.unit);
  row.process_container = bounded(p?.container);
  return row;
}

/** Most stored-row objects the pipeline keeps for reuse (a sensor batch holds up to ~1000 flows). */
const MAX_POOLED_ROWS = 4096;

export class SensorPipeline {
  readonly counters: PipelineCounters = { batches: 0, flows: 0, storedFlows: 0, droppedBatches: 0, droppedFlows: 0, errors: 0 };
  private readonly deps: PipelineDeps;
  /** Flow batches, and ARP batches wrapped as `{ arp }`, in arrival order. */
  private readonly queue: Array<FlowRecord[] | { arp: readonly ArpBinding[] }> = [];
  private queuedFlowBatches = 0;
  private draining: Promise<void> | null = null;
  private pruneTimer: NodeJS.Timeout | null = null;
  /**
   * Takes each batch; gives it back once stored, exported and scored. A replay runs at most as many batches ahead as
   * the queue holds, so a file replayed faster than detection keeps up is slowed down rather than dropped.
   */
  private readonly listener: (flows: FlowRecord[]) => void;
  private readonly arpListener = (bindings: ArpBinding[]): void => this.acceptArp(bindings);
  private idleWaiters: Array<() => void> = [];
  /**
   * Row objects reused batch after batch: a batch's rows are dead once `insertFlowBatch` has returned (nothing keeps
   * them), and a fresh object per flow was ~12 MB of garbage per 20 s in the soak (bench/README.md, Soak).
   */
  private readonly rowPool: NewFlow[] = [];

  constructor(deps: PipelineDeps) {
    this.deps = deps;
    this.listener = givesBatchesBack((flows: FlowRecord[]): void => this.accept(flows), this.maxQueued());
  }

  /** Flow batches queued at most; beyond that a batch is dropped (live capture overload). */
  private maxQueued(): number {
    return this.deps.maxQueuedBatches ?? 64;
  }

  /** Subscribes to the sensor and starts periodic retention. */
  start(): void {
    // The capture core's column-backed records when the sensor has them (no per-flow decoding; nothing here keeps a
    // record beyond its batch), else plain records.
    if (emitsColumnFlows(this.deps.sensor)) {
      this.deps.sensor.on('columnFlows', this.listener);
      this.deps.sensor.on('arp', this.arpListener);
    } else this.deps.sensor.on('flows', this.listener);
    this.pruneTimer = setInterval(() => {
      this.prune().catch((err: unknown) => this.deps.log?.('flow retention failed', err));
    }, this.deps.pruneIntervalMs ?? 60_000);
    this.pruneTimer.unref();
  }

  /** Unsubscribes and waits until the queued batches are stored and scored. */
  async stop(): Promise<void> {
    if (emitsColumnFlows(this.deps.sensor)) {
      this.deps.sensor.off('columnFlows', this.listener);
      this.deps.sensor.off('arp', this.arpListener);
    } else this.deps.sensor.off('flows', this.listener);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    this.pruneTimer = null;
    await this.idle();
  }

  /** Resolves when no batch is queued or in flight. */
  idle(): Promise<void> {
    if (this.draining === null && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Applies the retention limits now. */
  async prune(): Promise<number> {
    const retention: FlowRetention = { olderThanMs: this.deps.now() - this.deps.retention.maxAgeMs, maxRows: this.deps.retention.maxRows };
    return pruneFlows(this.deps.store, retention);
  }

  /** Entry point of a sensor batch (also usable directly by tests and benchmarks). */
  accept(flows: FlowRecord[]): void {
    if (flows.length === 0) return;
    this.counters.batches++;
    this.counters.flows += flows.length;
    try {
      this.deps.onFlows?.(flows);
    } catch (err) {
      this.counters.errors++;
      this.deps.log?.('flow statistics failed', err);
    }
    if (this.queuedFlowBatches >= this.maxQueued()) {
      this.counters.droppedBatches++;
      this.counters.droppedFlows += flows.length;
      this.deps.detection?.skip?.(flows.length);
      releaseFlowBatch(flows);
      return;
    }
    this.queue.push(flows);
    this.queuedFlowBatches++;
    this.draining ??= this.drain();
  }

  /** Entry point of the sensor's ARP bindings: queued behind the flow batches before them, for detection only. */
  acceptArp(bindings: readonly ArpBinding[]): void {
    if (bindings.length === 0 || !this.deps.detection?.ingestArp) return;
    this.queue.push({ arp: bindings });
    this.draining ??= this.drain();
  }

  /** The stored rows of `batch`, in pooled objects (valid until the next call). */
  private toRows(batch: readonly FlowRecord[]): NewFlow[] {
    const rows = new Array<NewFlow>(batch.length);
    for (let i = 0; i < batch.length; i++) {
      let row = this.rowPool[i];
      if (row === undefined) {
        row = {} as NewFlow;
        if (i < MAX_POOLED_ROWS) this.rowPool.push(row);
      }
      rows[i] = fillFlowRow(batch[i] as FlowRecord, this.deps.now(), row);
    }
    return rows;
  }

  private async drain(): Promise<void> {
    try {
      for (let batch = this.queue.shift(); batch !== undefined; batch = this.queue.shift()) {
        if (!Array.isArray(batch)) {
          try {
            await this.deps.detection?.ingestArp?.(batch.arp);
          } catch (err) {
            this.counters.errors++;
            this.deps.log?.('ARP detection failed', err);
          }
          continue;
        }
        this.queuedFlowBatches--;
        try {
          this.counters.storedFlows += await insertFlowBatch(this.deps.store, this.toRows(batch));
        } catch (err) {
          this.counters.errors++;
          this.deps.log?.('storing flows failed', err);
        }
        try {
          this.deps.onStored?.(batch);
        } catch (err) {
          this.counters.errors++;
          this.deps.log?.('exporting flows failed', err);
        }
        if (this.deps.detection) {
          try {
            await this.deps.detection.ingest(batch);
          } catch (err) {
            this.counters.errors++;
            this.deps.log?.('detection failed', err);
          }
        }
        // Stored, exported and scored: nothing here reads the batch again, so its memory goes back to the capture core.
        releaseFlowBatch(batch);
      }
    } finally {
      this.draining = null;
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }
}
