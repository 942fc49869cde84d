/**
 * The typed face of the capture core: {@link createSensor} (the {@link Sensor} of `./types.ts`),
 * {@link listInterfaces} and {@link replayFile}. Flows arrive from the capture thread in batches
 * (`./flow-batch.ts`); this module never blocks the event loop on native work.
 */
import { EventEmitter } from 'node:events';
import type { Binding } from '../../binding.js';
import { wrapNativeError } from './errors.js';
import { columnFlowRecords, decodeFlowBatch, isoTimestamp, shiftFlowTimes } from './flow-batch.js';
import { checkLayout } from './flow-columns.js';
import { loadBinding } from './load.js';
import type { CaptureSource, FlowOptions, FlowRecord, FlowTimeSpan, Sensor, SensorEvents, SensorStats } from './types.js';

/** {@link SensorStats} plus what the addon adds: snapshots emitted, fragments attributed, link type, timestamp digits. */
export interface CaptureStats extends SensorStats {
  snapshots: number;
  fragmentsAttributed: number;
  /** DLT/LINKTYPE of the source. */
  linkType: number;
  /** Sub-second digits of the source's timestamps (6 = µs, 9 = ns). */
  tsDigits: number;
  /** Application-layer counters (absent from sessions that have not started). */
  appLayer?: Binding.RawAppLayerStats;
  /** Process attribution counters (absent from sessions that have not started). */
  process?: Binding.RawProcessStats;
}

/** One ARP (IP, MAC) binding: totals since first seen (the `arp` event; times ISO 8601 like flows'). */
export interface ArpBinding {
  senderMac: string;
  senderIp: string;
  targetIp: string;
  requests: number;
  replies: number;
  /** Runs of consecutive requests for the same target IP, gratuitous ones aside: 1 for a host asking for one address, N for a sweep of N. */
  targetRuns: number;
  /**
   * Requests for a target not among the binding's 64 most recently asked distinct targets, gratuitous ones aside: N for
   * a sweep of N addresses, each neighbour once for a gateway refreshing the same neighbours (which `targetRuns`
   * counts at every alternation).
   */
  newTargets: number;
  /**
   * Capture times (epoch ms, the session's time offset applied) of the new targets since the previous `arp` event of
   * this binding, oldest first (the latest 64): a fast replay hands bindings over once a second of wall time, which
   * may hold hours of capture time. Not part of a binding's totals.
   */
  newTargetTimes: number[];
  /** Messages whose sender IP equals their target IP (gratuitous ARP: announcements, or unsolicited claims). */
  gratuitous: number;
  firstSeen: string;
  lastSeen: string;
}

/** Extra tuning accepted by {@link createSensor}'s `start` and {@link replayFile} (seconds unless named). */
export interface CaptureTuning extends FlowOptions {
  /** After FIN both ways or RST, packets within this linger still join the flow (default 1 s). */
  tcpLingerSec?: number;
  /** CICFlowMeter activity timeout splitting active/idle periods (default 5 s). */
  activityTimeoutSec?: number;
  /** Flow records per batch handed to JS (default 1024). */
  batchFlows?: number;
  /** Test-only: batches in flight to JS before live capture drops (default 16). */
  _queueDepth?: number;
}

/** A capture device (pcap_findalldevs). */
export type CaptureInterface = Binding.Device;

/** Defaults documented in docs/flow-features.md. */
export const DEFAULT_FLOW_OPTIONS = Object.freeze({
  idleTimeoutSec: 120,
  activeTimeoutSec: 1800,
  maxFlows: 1_048_576,
  snapshotIntervalSec: 5,
  statsIntervalMs: 1000,
});

let layoutChecked = false;
function addon(): Binding.Addon {
  const b = loadBinding();
  if (!layoutChecked) {
    checkLayout(b);
    layoutChecked = true;
  }
  return b;
}

function positive(name: string, v: number | undefined, allowZero: boolean): void {
  if (v === undefined) return;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || (!allowZero && v === 0)) {
    throw new RangeError(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, got ${String(v)}`);
  }
}

function toStartOptions(source: CaptureSource, o: CaptureTuning): Binding.CaptureStartOptions {
  positive('idleTimeoutSec', o.idleTimeoutSec, false);
  positive('activeTimeoutSec', o.activeTimeoutSec, false);
  positive('maxFlows', o.maxFlows, false);
  positive('snapshotIntervalSec', o.snapshotIntervalSec, true);
  positive('statsIntervalMs', o.statsIntervalMs, false);
  positive('tcpLingerSec', o.tcpLingerSec, true);
  positive('activityTimeoutSec', o.activityTimeoutSec, false);
  positive('batchFlows', o.batchFlows, false);
  positive('_queueDepth', o._queueDepth, false);
  positive('processCpuPercent', o.processCpuPercent, false);
  if (o.communityIdSeed !== undefined && (!Number.isInteger(o.communityIdSeed) || o.communityIdSeed < 0 || o.communityIdSeed > 65535)) {
    throw new RangeError(`communityIdSeed must be a whole number from 0 to 65535, got ${String(o.communityIdSeed)}`);
  }
  if (o.timeOffsetSec !== undefined && (!Number.isSafeInteger(o.timeOffsetSec) || o.timeOffsetSec < 0)) {
    throw new RangeError(`timeOffsetSec must be a non-negative whole number, got ${String(o.timeOffsetSec)}`);
  }
  const common = {
    idleTimeoutSec: o.idleTimeoutSec ?? DEFAULT_FLOW_OPTIONS.idleTimeoutSec,
    activeTimeoutSec: o.activeTimeoutSec ?? DEFAULT_FLOW_OPTIONS.activeTimeoutSec,
    maxFlows: o.maxFlows ?? DEFAULT_FLOW_OPTIONS.maxFlows,
    snapshotIntervalSec: o.snapshotIntervalSec ?? DEFAULT_FLOW_OPTIONS.snapshotIntervalSec,
    statsIntervalMs: o.statsIntervalMs ?? DEFAULT_FLOW_OPTIONS.statsIntervalMs,
    tcpLingerSec: o.tcpLingerSec,
    activityTimeoutSec: o.activityTimeoutSec,
    batchFlows: o.batchFlows,
    _queueDepth: o._queueDepth,
    appLayer: o.appLayer ?? true,
    communityIdSeed: o.communityIdSeed ?? 0,
    detachBatches: true, // batches are decoded synchronously and never kept (see columnFlows in start())
  };
  if (source.kind === 'file') {
    if (typeof source.path !== 'string' || source.path === '') throw new TypeError('source.path must be a non-empty string');
    positive('speed', source.speed, true);
    return { kind: 'file', path: source.path, filter: source.filter, speed: source.speed ?? 0, ...common };
  }
  positive('snaplen', source.snaplen, false);
  positive('bufferSize', source.bufferSize, false);
  return {
    kind: 'live',
    processes: o.processes ?? false,
    processCpuPercent: o.processCpuPercent,
    interface: source.interface,
    filter: source.filter,
    promiscuous: source.promiscuous,
    snaplen: source.snaplen,
    bufferSize: source.bufferSize,
    immediate: source.immediate,
    ...common,
  };
}

/** All-zero counters of a session that has not started (the common SensorStats fields). */
export function emptySensorStats(): SensorStats {
  return {
    packets: 0,
    bytes: 0,
    flows: 0,
    flowsActive: 0,
    flowsEvicted: 0,
    protocols: {},
    decodeErrors: {},
    pcap: { received: 0, dropped: 0, ifDropped: 0 },
    batchesDelivered: 0,
    batchesDropped: 0,
  };
}

function emptyStats(): CaptureStats {
  return { ...emptySensorStats(), snapshots: 0, fragmentsAttributed: 0, linkType: 0, tsDigits: 6 };
}

/** The {@link Sensor} over the native `Capture`. One session at a time; start() again after the end is fine. */
class NativeSensor implements CaptureSensor {
  #emitter = new EventEmitter();
  #capture: Binding.Capture | null = null;
  #source: CaptureSource | null = null;
  #running = false;
  #tsDigits = 6;
  #last: CaptureStats = emptyStats();
  #ended: Promise<CaptureStats> = Promise.resolve(emptyStats());
  #span: FlowTimeSpan | null = null;

  get running(): boolean {
    return this.#running;
  }

  get source(): CaptureSource | null {
    return this.#source;
  }

  flowTimeSpan(): FlowTimeSpan | null {
    return this.#span === null ? null : { ...this.#span };
  }

  async start(source: CaptureSource, options: CaptureTuning = {}): Promise<void> {
    if (this.#running) return;
    const opts = toStartOptions(source, options);
    const offsetSec = options.timeOffsetSec ?? 0;
    let span: FlowTimeSpan | null = null;
    // Column-backed records read the batch buffer after the callback returns: the addon must not detach it then, so
    // with `columnFlows` listeners each batch is lent instead, until every listener gave it back (releaseFlowBatch).
    const detach = this.#emitter.listenerCount('columnFlows') === 0;
    opts.detachBatches = detach;
    opts.lendBatches = !detach;
    // A replay whose listeners all give every batch back runs no further ahead of them than the least of their limits.
    if (!detach) opts.lendLimit = lendLimitOf(this.#emitter.listeners('columnFlows'));
    const b = addon();
    const capture = new b.Capture();
    let resolveEnd: (s: CaptureStats) => void = () => undefined;
    const ended = new Promise<CaptureStats>((resolve) => {
      resolveEnd = resolve;
    });
    const listener: Binding.CaptureEventListener = (event, a, err) => {
      if (event === 'flows') {
        const buffer = a as ArrayBuffer;
        // Shifted once, in place, before anyone reads the batch; the span is the session's, before the shift.
        const batchSpan = shiftFlowTimes(buffer, offsetSec);
        if (batchSpan !== null) {
          if (span === null) span = batchSpan;
          else {
            span.firstMs = Math.min(span.firstMs, batchSpan.firstMs);
            span.lastMs = Math.max(span.lastMs, batchSpan.lastMs);
          }
          this.#span = span;
        }
        let holders = this.#emitter.listenerCount('columnFlows');
        if (holders > 0) {
          // A listener added after start() gets a copy: the addon detaches the buffer when this callback returns.
          const records = columnFlowRecords(detach ? buffer.slice(0) : buffer, this.#tsDigits);
          if (records.length > 0) {
            if (!detach) lentBatches.set(records, { buffer, holders });
            this.#emitter.emit('columnFlows', records);
          } else holders = 0;
        }
        if (this.#emitter.listenerCount('flows') > 0) {
          const flows = decodeFlowBatch(buffer, this.#tsDigits);
          if (flows.length > 0) this.#emitter.emit('flows', flows);
        }
        // A lent batch no listener took (all of them gone since start(), or no flows) goes back at once.
        if (!detach && holders === 0) b.Capture.releaseBatch(buffer);
      } else if (event === 'arp') {
        if (this.#emitter.listenerCount('arp') === 0) return;
        // The session's time offset applies as to flows; ISO times with the capture's precision, as flows'.
        const bindings = (a as Binding.RawArpBinding[]).map((r): ArpBinding => ({
          senderMac: r.senderMac,
          senderIp: r.senderIp,
          targetIp: r.targetIp,
          requests: r.requests,
          replies: r.replies,
          targetRuns: r.targetRuns,
          newTargets: r.newTargets,
          newTargetTimes: offsetSec === 0 ? r.newTargetTimesMs : r.newTargetTimesMs.map((ms) => ms + offsetSec * 1000),
          gratuitous: r.gratuitous,
          firstSeen: isoTimestamp(r.firstSec + offsetSec, r.firstNsec, this.#tsDigits),
          lastSeen: isoTimestamp(r.lastSec + offsetSec, r.lastNsec, this.#tsDigits),
        }));
        this.#emitter.emit('arp', bindings);
      } else if (event === 'stats') {
        this.#last = a as CaptureStats;
        this.#emitter.emit('stats', this.#last);
      } else {
        this.#last = a as CaptureStats;
        this.#running = false;
        this.#capture = null;
        if (err !== undefined && this.#emitter.listenerCount('error') > 0) {
          this.#emitter.emit('error', wrapNativeError(err, source.kind) as Error);
        }
        this.#emitter.emit('end', this.#last);
        resolveEnd(this.#last);
      }
    };
    try {
      capture.start(opts, listener);
    } catch (err) {
      throw wrapNativeError(err, source.kind);
    }
    this.#capture = capture;
    this.#source = source;
    this.#running = true;
    this.#span = null;
    this.#ended = ended;
    const initial = capture.stats() as CaptureStats;
    this.#tsDigits = initial.tsDigits;
    this.#last = initial;
  }

  async stop(): Promise<CaptureStats> {
    if (!this.#running || this.#capture === null) return this.#ended;
    this.#capture.stop();
    return this.#ended;
  }

  stats(): CaptureStats {
    return this.#capture !== null ? (this.#capture.stats() as CaptureStats) : this.#last;
  }

  on<E extends keyof CaptureSensorEvents>(event: E, listener: CaptureSensorEvents[E]): this {
    this.#emitter.on(event, listener);
    return this;
  }

  off<E extends keyof CaptureSensorEvents>(event: E, listener: CaptureSensorEvents[E]): this {
    this.#emitter.off(event, listener);
    return this;
  }
}

/** `columnFlows` listeners that give every batch back ({@link givesBatchesBack}), with the most each holds at once. */
const batchLimits = new WeakMap<object, number>();

/**
 * Marks a `columnFlows` listener as one that gives every batch back with {@link releaseFlowBatch}, and holds at most
 * `inFlight` batches at once (those it queues, and the one it works on). When every `columnFlows` listener at start()
 * is marked, a replay runs at most that many batches ahead of them (the least of their limits, and at most
 * {@link REPLAY_AHEAD_MAX}): it waits for a batch to come back instead of handing over batches faster than they are
 * taken (which a bounded queue would drop). Live capture never waits. Returns the listener.
 */
export function givesBatchesBack<L extends (flows: FlowRecord[]) => void>(listener: L, inFlight: number): L {
  if (!Number.isInteger(inFlight) || inFlight < 1) throw new RangeError(`inFlight must be a whole number of at least 1, got ${String(inFlight)}`);
  batchLimits.set(listener, inFlight);
  return listener;
}

/**
 * The most batches a replay runs ahead of listeners that give them back. A consumer slower than the replay only needs
 * the next batch ready when it is done with one; more ahead is memory held (the pipeline's 64-batch queue was up to
 * ~90 MB of lent batches on the detection bench's input) and batch buffers the capture core maps in afresh rather
 * than reuses: at 64, a pipeline run over that input prefaulted ~70 new buffers (~100 MB), at 16 its spares serve
 * nearly every batch.
 */
export const REPLAY_AHEAD_MAX = 16;

/** The lend limit for these listeners: the least of their limits when all give batches back, else 0 (none). */
function lendLimitOf(listeners: readonly unknown[]): number {
  let limit = REPLAY_AHEAD_MAX;
  for (const l of listeners) {
    const own = typeof l === 'function' ? batchLimits.get(l) : undefined;
    if (own === undefined) return 0;
    limit = Math.min(limit, own);
  }
  return listeners.length > 0 ? limit : 0;
}

/** Lent `columnFlows` batches (see {@link releaseFlowBatch}): the buffer and how many listeners still hold it. */
const lentBatches = new WeakMap<readonly FlowRecord[], { buffer: ArrayBuffer; holders: number }>();

/**
 * Gives back a `columnFlows` batch: each listener calls it once per batch, when it (and everything it handed the
 * records to) is done with them. When every listener the batch went to has given it back, its memory goes straight
 * back to the capture core for a later batch: no copy into a fresh ArrayBuffer on the way in, and nothing left for the
 * garbage collector (bench/README.md, Detection). From then on the records must not be read (their buffer is
 * detached). A batch a listener never gives back stays valid and is reclaimed when V8 collects it. A no-op for any
 * other array, and for a batch already given back.
 */
export function releaseFlowBatch(flows: readonly FlowRecord[]): void {
  const lent = lentBatches.get(flows);
  if (lent === undefined) return;
  if (--lent.holders > 0) return;
  lentBatches.delete(flows);
  addon().Capture.releaseBatch(lent.buffer);
}

/** {@link SensorEvents} plus `columnFlows`. */
export interface CaptureSensorEvents extends SensorEvents {
  /**
   * The same batches as `flows`, as column-backed records (flow-batch.ts `columnFlowRecords`): same fields and values,
   * no per-flow decoding cost, but read-only views of the batch (no own properties: never spread them) that keep its
   * buffer alive, so listeners read what they need and let them go. Attach before start() (later, each batch is copied).
   * Each listener gives each batch back with {@link releaseFlowBatch} once it is done with it.
   */
  columnFlows: (flows: FlowRecord[]) => void;
  /** ARP bindings that changed (layer 2 has no flows): each with its totals since first seen. */
  arp: (bindings: ArpBinding[]) => void;
}

/** The {@link Sensor} this module implements, with the richer {@link CaptureStats} and `columnFlows` batches. */
export interface CaptureSensor extends Sensor {
  start(source: CaptureSource, options?: CaptureTuning): Promise<void>;
  stop(): Promise<CaptureStats>;
  stats(): CaptureStats;
  on<E extends keyof CaptureSensorEvents>(event: E, listener: CaptureSensorEvents[E]): this;
  off<E extends keyof CaptureSensorEvents>(event: E, listener: CaptureSensorEvents[E]): this;
}

/** True for sensors made by {@link createSensor} (they emit `columnFlows`; test doubles of {@link Sensor} may not). */
export function emitsColumnFlows(sensor: object): sensor is CaptureSensor {
  return sensor instanceof NativeSensor;
}

/** A new, idle capture session. Loads the addon on first start(). */
export function createSensor(): CaptureSensor {
  return new NativeSensor();
}

/** Capture devices as libpcap lists them. Throws `ServiceUnavailableError` if the addon is not built. */
export function listInterfaces(): CaptureInterface[] {
  try {
    return addon().listInterfaces();
  } catch (err) {
    throw wrapNativeError(err, 'live');
  }
}

/** Result of {@link replayFile}: finished flows (in emission order), snapshots (if enabled) and final counters. */
export interface ReplayResult {
  flows: FlowRecord[];
  snapshots: FlowRecord[];
  stats: CaptureStats;
}

/** Options of {@link replayFile}: flow tuning plus a BPF filter and pacing (0 = as fast as possible, the default). */
export interface ReplayOptions extends CaptureTuning {
  filter?: string;
  speed?: number;
}

/**
 * Replays a pcap/pcapng file through the whole pipeline and resolves with every flow and the final counters.
 * Snapshots are off unless `snapshotIntervalSec` is given. Rejects with a `CaptureError` when the file cannot be
 * opened (`capture_file_unreadable` / `capture_file_corrupt`) or reading fails midway (`capture_file_corrupt`).
 */
export async function replayFile(path: string, options: ReplayOptions = {}): Promise<ReplayResult> {
  const sensor = createSensor();
  const flows: FlowRecord[] = [];
  const snapshots: FlowRecord[] = [];
  let failure: Error | undefined;
  sensor.on('flows', (batch) => {
    for (const f of batch) (f.endReason === 'snapshot' ? snapshots : flows).push(f);
  });
  sensor.on('error', (err) => {
    failure = err;
  });
  const ended = new Promise<SensorStats>((resolve) => sensor.on('end', resolve));
  const { filter, speed, ...tuning } = options;
  await sensor.start({ kind: 'file', path, filter, speed }, { snapshotIntervalSec: 0, ...tuning });
  const stats = (await ended) as CaptureStats;
  if (failure) throw failure;
  return { flows, snapshots, stats };
}
