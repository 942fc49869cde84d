/**
 * Live traffic statistics of the running sensor: per-second and per-minute timelines of the sensor totals (kept in
 * memory and in the store's traffic buckets, so the 24-hour view survives restarts), and top talkers, top ports and the
 * direction split attributed from flow records. A once-per-second tick closes the last second; listeners registered
 * with {@link LiveStats.onTick} run after it (the desktop API publishes its `stats` event there).
 */
import type { Clock } from '../clock.js';
import { localAddressClassifier } from '../net/classify.js';
import type { FlowRecord } from '../native/types.js';
import type { Store } from '../store/database.js';
import { addToBuckets, listBuckets, pruneBuckets } from '../store/repos/traffic.repo.js';
import type { MonitoringService } from './monitoring.js';

const SECOND_MS = 1000;
const MINUTE_MS = 60_000;
/** Per-second timeline length (5 minutes). */
const SECONDS_KEPT = 300;
/** Per-minute timeline length (24 hours). */
const MINUTES_KEPT = 1440;
/** Bound of the talker/port maps; when exceeded, only the top entries are kept. */
const MAX_KEYS = 50_000;
const KEEP_KEYS = 10_000;

/** Packets, bytes and flows of one bucket, talker, port or direction. */
export interface TrafficCounts {
  packets: number;
  bytes: number;
  flows: number;
}

/** A host's traffic: bytes it sent and received (`bytes` is their sum). */
export interface TalkerCounts extends TrafficCounts {
  ip: string;
  sentBytes: number;
  receivedBytes: number;
}

/** Traffic to one responder port. */
export interface PortCounts extends TrafficCounts {
  port: number;
  protocol: 'tcp' | 'udp';
}

/**
 * Traffic from the local side's point of view: outbound = sent by local hosts to remote ones, inbound = received from
 * remote; internal = local to local; external = neither end local (transit, replayed captures).
 */
export interface DirectionCounts {
  inbound: TrafficCounts;
  outbound: TrafficCounts;
  internal: TrafficCounts;
  external: TrafficCounts;
}

/** One timeline bucket: the counts of the second or minute starting at `startMs` (epoch ms). */
export interface TimelineBucket extends TrafficCounts {
  startMs: number;
}

/** Dependencies of {@link LiveStats}. */
export interface LiveStatsDeps {
  store: Store;
  /** Sensor totals summed over capture sessions (what the timelines count). */
  monitoring: Pick<MonitoringService, 'totals'>;
  clock: Clock;
  /** Which IPs are local (default: this machine's addresses and private ranges). */
  isLocal?: (ip: string) => boolean;
  log?: (message: string, err: unknown) => void;
}

const zero = (): TrafficCounts => ({ packets: 0, bytes: 0, flows: 0 });

function topN<T extends { bytes: number }>(map: Map<string, T>, n: number): Array<[string, T]> {
  return [...map.entries()].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, n);
}

function trim<T extends { bytes: number }>(map: Map<string, T>): void {
  if (map.size <= MAX_KEYS) return;
  const keep = topN(map, KEEP_KEYS);
  map.clear();
  for (const [k, v] of keep) map.set(k, v);
}

/** The sensor's live statistics: fed flow batches by the pipeline, ticked once per second. */
export class LiveStats {
  private readonly deps: LiveStatsDeps;
  private readonly isLocal: (ip: string) => boolean;
  /** Per-second buckets keyed by start ms. */
  private readonly seconds = new Map<number, TrafficCounts>();
  /** Per-minute buckets keyed by start ms. */
  private readonly minutes = new Map<number, TrafficCounts>();
  private readonly talkers = new Map<string, Omit<TalkerCounts, 'ip'>>();
  private readonly ports = new Map<string, PortCounts>();
  private readonly directions: DirectionCounts = { inbound: zero(), outbound: zero(), internal: zero(), external: zero() };
  /** Counters already attributed for flows reported as snapshots (key: flow identity). */
  private readonly snapshotted = new Map<string, { packets: number; bytes: number; fwdBytes: number; bwdBytes: number }>();
  private lastTotals: TrafficCounts | null = null;
  private last: TimelineBucket = { startMs: 0, ...zero() };
  private timer: NodeJS.Timeout | null = null;
  private ticks = 0;
  private readonly tickListeners = new Set<() => Promise<void> | void>();

  constructor(deps: LiveStatsDeps) {
    this.deps = deps;
    this.isLocal = deps.isLocal ?? localAddressClassifier();
  }

  /** True between {@link start} and {@link stop}: the once-per-second tick is running. */
  get running(): boolean {
    return this.timer !== null;
  }

  /** Loads the stored timelines and starts the once-per-second tick. */
  async start(): Promise<void> {
    const now = this.deps.clock.now();
    for (const b of await listBuckets(this.deps.store, 'minute', now - MINUTES_KEPT * MINUTE_MS)) {
      this.minutes.set(b.start_ms, { packets: b.packets, bytes: b.bytes, flows: b.flows });
    }
    for (const b of await listBuckets(this.deps.store, 'second', now - SECONDS_KEPT * SECOND_MS)) {
      this.seconds.set(b.start_ms, { packets: b.packets, bytes: b.bytes, flows: b.flows });
    }
    this.lastTotals = this.snapshotTotals();
    this.timer = setInterval(() => {
      this.tick().catch((err: unknown) => this.deps.log?.('stats tick failed', err));
    }, SECOND_MS);
    this.timer.unref();
  }

  /** Stops the tick; the last partial second is flushed (tick listeners run with {@link running} false). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.tick();
  }

  /**
   * Registers `listener` to run after every closed second, awaited in registration order; a listener that throws fails
   * that tick (logged). Returns the function that removes it.
   */
  onTick(listener: () => Promise<void> | void): () => void {
    this.tickListeners.add(listener);
    return () => this.tickListeners.delete(listener);
  }

  /** Attributes a flow batch to talkers, ports and directions (snapshots of one flow are not double-counted). */
  recordFlows(flows: readonly FlowRecord[]): void {
    for (const f of flows) {
      const key = `${f.id}|${f.firstSeenMs}|${f.srcIp}|${f.srcPort}`;
      const prev = this.snapshotted.get(key);
      const d = {
        packets: f.packets - (prev?.packets ?? 0),
        bytes: f.bytes - (prev?.bytes ?? 0),
        fwdBytes: f.fwdBytes - (prev?.fwdBytes ?? 0),
        bwdBytes: f.bwdBytes - (prev?.bwdBytes ?? 0),
        flows: prev === undefined ? 1 : 0,
      };
      if (f.endReason === 'snapshot') {
        this.snapshotted.set(key, { packets: f.packets, bytes: f.bytes, fwdBytes: f.fwdBytes, bwdBytes: f.bwdBytes });
        if (this.snapshotted.size > MAX_KEYS) this.snapshotted.delete(this.snapshotted.keys().next().value as string);
      } else if (prev !== undefined) {
        this.snapshotted.delete(key);
      }
      this.attribute(f, d);
    }
    trim(this.talkers);
    trim(this.ports);
  }

  private attribute(f: FlowRecord, d: { packets: number; bytes: number; fwdBytes: number; bwdBytes: number; flows: number }): void {
    const talk = (ip: string, sent: number, received: number): void => {
      const t = this.talkers.get(ip) ?? { packets: 0, bytes: 0, flows: 0, sentBytes: 0, receivedBytes: 0 };
      t.packets += d.packets;
      t.bytes += sent + received;
      t.flows += d.flows;
      t.sentBytes += sent;
      t.receivedBytes += received;
      this.talkers.set(ip, t);
    };
    talk(f.srcIp, d.fwdBytes, d.bwdBytes);
    talk(f.dstIp, d.bwdBytes, d.fwdBytes);

    if (f.protocol === 6 || f.protocol === 17) {
      const protocol = f.protocol === 6 ? 'tcp' : 'udp';
      const k = `${protocol}/${f.dstPort}`;
      const p = this.ports.get(k) ?? { port: f.dstPort, protocol, packets: 0, bytes: 0, flows: 0 };
      p.packets += d.packets;
      p.bytes += d.bytes;
      p.flows += d.flows;
      this.ports.set(k, p);
    }

    const srcLocal = this.isLocal(f.srcIp);
    const dstLocal = this.isLocal(f.dstIp);
    const add = (bucket: TrafficCounts, bytes: number, packets: number, flows: number): void => {
      bucket.bytes += bytes;
      bucket.packets += packets;
      bucket.flows += flows;
    };
    const fwdShare = d.bytes > 0 ? d.fwdBytes / Math.max(1, d.fwdBytes + d.bwdBytes) : 0.5;
    const fwdPackets = Math.round(d.packets * fwdShare);
    if (srcLocal && dstLocal) add(this.directions.internal, d.bytes, d.packets, d.flows);
    else if (!srcLocal && !dstLocal) add(this.directions.external, d.bytes, d.packets, d.flows);
    else {
      const [sentBy, receivedBy] = srcLocal ? [this.directions.outbound, this.directions.inbound] : [this.directions.inbound, this.directions.outbound];
      add(sentBy, d.fwdBytes, fwdPackets, d.flows);
      add(receivedBy, d.bwdBytes, d.packets - fwdPackets, 0);
    }
  }

  /**
   * Closes the current second: the totals' deltas since the last tick go to both timelines and the store's traffic
   * buckets, then the tick listeners run.
   */
  async tick(): Promise<void> {
    const now = this.deps.clock.now();
    const totals = this.snapshotTotals();
    const last = this.lastTotals ?? totals;
    // A negative delta cannot happen (totals are summed over sessions), but never record one.
    const delta: TrafficCounts = {
      packets: Math.max(0, totals.packets - last.packets),
      bytes: Math.max(0, totals.bytes - last.bytes),
      flows: Math.max(0, totals.flows - last.flows),
    };
    this.lastTotals = totals;
    const secondStart = Math.floor(now / SECOND_MS) * SECOND_MS - SECOND_MS;
    const minuteStart = Math.floor(secondStart / MINUTE_MS) * MINUTE_MS;
    const add = (map: Map<number, TrafficCounts>, key: number): void => {
      const b = map.get(key) ?? zero();
      b.packets += delta.packets;
      b.bytes += delta.bytes;
      b.flows += delta.flows;
      map.set(key, b);
    };
    add(this.seconds, secondStart);
    add(this.minutes, minuteStart);
    this.last = { startMs: secondStart, ...delta };
    for (const k of this.seconds.keys()) if (k < now - SECONDS_KEPT * SECOND_MS - SECOND_MS) this.seconds.delete(k);
    for (const k of this.minutes.keys()) if (k < now - MINUTES_KEPT * MINUTE_MS - MINUTE_MS) this.minutes.delete(k);

    if (delta.packets + delta.bytes + delta.flows > 0) {
      await addToBuckets(this.deps.store, [
        { resolution: 'second', start_ms: secondStart, ...delta },
        { resolution: 'minute', start_ms: minuteStart, ...delta },
      ]);
    }
    if (++this.ticks % 60 === 0) {
      await pruneBuckets(this.deps.store, 'second', now - SECONDS_KEPT * SECOND_MS);
      await pruneBuckets(this.deps.store, 'minute', now - MINUTES_KEPT * MINUTE_MS);
    }
    for (const listener of [...this.tickListeners]) await listener();
  }

  private snapshotTotals(): TrafficCounts {
    const t = this.deps.monitoring.totals();
    return { packets: t.packets, bytes: t.bytes, flows: t.flows };
  }

  /** The last closed second (zeros before the first tick). Replaced, never mutated, by each tick. */
  lastSecond(): Readonly<TimelineBucket> {
    return this.last;
  }

  /** One bucket per second for the 300 seconds up to the last closed one, oldest first (zeros where nothing was seen). */
  perSecond(): TimelineBucket[] {
    const now = this.deps.clock.now();
    const out: TimelineBucket[] = [];
    const lastSecond = Math.floor(now / SECOND_MS) * SECOND_MS - SECOND_MS;
    for (let t = lastSecond - (SECONDS_KEPT - 1) * SECOND_MS; t <= lastSecond; t += SECOND_MS) out.push({ startMs: t, ...(this.seconds.get(t) ?? zero()) });
    return out;
  }

  /** One bucket per minute with traffic in the last 24 hours, oldest first. */
  perMinute(): TimelineBucket[] {
    const now = this.deps.clock.now();
    return [...this.minutes.entries()]
      .filter(([t]) => t >= now - MINUTES_KEPT * MINUTE_MS)
      .sort((a, b) => a[0] - b[0])
      .map(([t, b]) => ({ startMs: t, ...b }));
  }

  /** The `n` hosts with the most bytes sent + received (copies). */
  topTalkers(n: number): TalkerCounts[] {
    return topN(this.talkers, n).map(([ip, t]) => ({ ip, ...t }));
  }

  /** The `n` responder ports with the most bytes (copies). */
  topPorts(n: number): PortCounts[] {
    return topN(this.ports, n).map(([, p]) => ({ ...p }));
  }

  /** The direction split since start (a copy). */
  directionCounts(): DirectionCounts {
    return structuredClone(this.directions);
  }
}
