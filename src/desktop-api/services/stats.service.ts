/**
 * Live traffic statistics: totals from the sensor (summed over sessions by the monitoring service), per-second and
 * per-minute timelines (kept in memory and in the store's traffic buckets so the 24-hour view survives restarts), top
 * talkers/ports and the direction split from flow records, and the dashboard counters. Publishes a `stats` event
 * every second.
 */
import type { EventBus } from '../../events.js';
import type { FlowRecord, SensorStats } from '../../native/types.js';
import type { FirewallService } from '../../firewall/types.js';
import type { Store } from '../../store/database.js';
import { countUnacknowledged } from '../../store/repos/alert.repo.js';
import { countOpenThreats } from '../../store/repos/threat.repo.js';
import { addToBuckets, listBuckets, pruneBuckets } from '../../store/repos/traffic.repo.js';
import type { DashboardStats, TrafficStats } from '../schemas/stats.schema.js';
import { localAddressClassifier } from './address-class.js';
import type { Clock } from '../../clock.js';
import type { MonitoringService } from '../../sensor/monitoring.js';

const SECOND_MS = 1000;
const MINUTE_MS = 60_000;
/** Per-second timeline length (5 minutes). */
const SECONDS_KEPT = 300;
/** Per-minute timeline length (24 hours). */
const MINUTES_KEPT = 1440;
/** Threats detection updated within this window count as open on the dashboard. */
const OPEN_THREAT_MS = 24 * 3_600_000;
/** Dashboard database counters are reused for this long unless an alert/firewall event invalidates them. */
const COUNT_CACHE_MS = 1000;
/** A dashboard body is reused for this long (10 refreshes per second at most) unless an event invalidates it. */
const DASHBOARD_CACHE_MS = 100;
/** Bound of the talker/port maps; when exceeded, only the top entries are kept. */
const MAX_KEYS = 50_000;
const KEEP_KEYS = 10_000;

interface Pbf {
  packets: number;
  bytes: number;
  flows: number;
}
interface Talker extends Pbf {
  sentBytes: number;
  receivedBytes: number;
}
interface PortUse extends Pbf {
  port: number;
  protocol: 'tcp' | 'udp';
}

const zero = (): Pbf => ({ packets: 0, bytes: 0, flows: 0 });

/** Dependencies of {@link StatsService}. */
export interface StatsDeps {
  store: Store;
  monitoring: Pick<MonitoringService, 'totals' | 'state'>;
  firewall: Pick<FirewallService, 'list'>;
  events: EventBus;
  clock: Clock;
  /** Which IPs are local (default: this machine's addresses and private ranges). */
  isLocal?: (ip: string) => boolean;
  log?: (message: string, err: unknown) => void;
}

function topN<T extends { bytes: number }>(map: Map<string, T>, n: number): Array<[string, T]> {
  return [...map.entries()].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, n);
}

function trim<T extends { bytes: number }>(map: Map<string, T>): void {
  if (map.size <= MAX_KEYS) return;
  const keep = topN(map, KEEP_KEYS);
  map.clear();
  for (const [k, v] of keep) map.set(k, v);
}

/** Statistics behind `/api/dashboard/stats`, `/api/traffic/stats` and the `stats` events. */
export class StatsService {
  private readonly deps: StatsDeps;
  private readonly isLocal: (ip: string) => boolean;
  /** Per-second buckets keyed by start ms. */
  private readonly seconds = new Map<number, Pbf>();
  /** Per-minute buckets keyed by start ms. */
  private readonly minutes = new Map<number, Pbf>();
  private readonly talkers = new Map<string, Talker>();
  private readonly ports = new Map<string, PortUse>();
  private readonly directions = { inbound: zero(), outbound: zero(), internal: zero(), external: zero() };
  /** Counters already attributed for flows reported as snapshots (key: flow identity). */
  private readonly snapshotted = new Map<string, { packets: number; bytes: number; fwdBytes: number; bwdBytes: number }>();
  private lastTotals: { packets: number; bytes: number; flows: number } | null = null;
  private lastSecond: Pbf & { t: number } = { t: 0, ...zero() };
  private timer: NodeJS.Timeout | null = null;
  private ticks = 0;
  private countCache: { at: number; unack: number; threats: number; blocked: number } | null = null;
  private dashboardCache: { at: number; body: DashboardStats; json?: Buffer } | null = null;
  private readonly unsubscribe: Array<() => void> = [];

  constructor(deps: StatsDeps) {
    this.deps = deps;
    this.isLocal = deps.isLocal ?? localAddressClassifier();
    const invalidate = (): void => {
      this.countCache = null;
      this.dashboardCache = null;
    };
    this.unsubscribe.push(deps.events.on('alert', invalidate), deps.events.on('firewall', invalidate));
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

  /** Stops the tick (the last partial second is flushed). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const u of this.unsubscribe.splice(0)) u();
    await this.tick();
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
    const add = (bucket: Pbf, bytes: number, packets: number, flows: number): void => {
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

  /** Closes the current second: deltas since the last tick go to the timelines, the store and a `stats` event. */
  async tick(): Promise<void> {
    const now = this.deps.clock.now();
    const totals = this.snapshotTotals();
    const last = this.lastTotals ?? totals;
    // A negative delta cannot happen (totals are summed over sessions), but never record one.
    const delta: Pbf = {
      packets: Math.max(0, totals.packets - last.packets),
      bytes: Math.max(0, totals.bytes - last.bytes),
      flows: Math.max(0, totals.flows - last.flows),
    };
    this.lastTotals = totals;
    const secondStart = Math.floor(now / SECOND_MS) * SECOND_MS - SECOND_MS;
    const minuteStart = Math.floor(secondStart / MINUTE_MS) * MINUTE_MS;
    const add = (map: Map<number, Pbf>, key: number): void => {
      const b = map.get(key) ?? zero();
      b.packets += delta.packets;
      b.bytes += delta.bytes;
      b.flows += delta.flows;
      map.set(key, b);
    };
    add(this.seconds, secondStart);
    add(this.minutes, minuteStart);
    this.lastSecond = { t: secondStart, ...delta };
    this.dashboardCache = null;
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
    if (this.timer !== null) this.deps.events.emit('stats', await this.dashboard());
  }

  private snapshotTotals(): { packets: number; bytes: number; flows: number } {
    const t = this.deps.monitoring.totals();
    return { packets: t.packets, bytes: t.bytes, flows: t.flows };
  }

  private async counts(): Promise<{ unack: number; threats: number; blocked: number }> {
    const now = this.deps.clock.now();
    if (this.countCache && now - this.countCache.at < COUNT_CACHE_MS) return this.countCache;
    const [unack, threats, blocked] = await Promise.all([
      countUnacknowledged(this.deps.store),
      countOpenThreats(this.deps.store, new Date(now - OPEN_THREAT_MS).toISOString()),
      this.deps.firewall.list().then((l) => l.total),
    ]);
    this.countCache = { at: now, unack, threats, blocked };
    return this.countCache;
  }

  /** `GET /api/dashboard/stats` body (recomputed at most every 100 ms, or at once after an alert/firewall event). */
  async dashboard(): Promise<DashboardStats> {
    const now = this.deps.clock.now();
    const cached = this.dashboardCache;
    if (cached && now - cached.at < DASHBOARD_CACHE_MS && now >= cached.at) return cached.body;
    const body = await this.computeDashboard();
    this.dashboardCache = { at: now, body };
    return body;
  }

  /**
   * The cached dashboard as UTF-8 JSON when the cache is still fresh, else null (then call {@link dashboardJson}): lets
   * the route answer the common case without a promise.
   */
  cachedDashboardJson(): Buffer | null {
    const cached = this.dashboardCache;
    if (cached === null) return null;
    const now = this.deps.clock.now();
    if (now - cached.at >= DASHBOARD_CACHE_MS || now < cached.at) return null;
    return (cached.json ??= Buffer.from(JSON.stringify(cached.body)));
  }

  /** {@link dashboard} serialised as UTF-8 JSON (serialised once per cached body). */
  async dashboardJson(): Promise<Buffer> {
    const body = await this.dashboard();
    const cached = this.dashboardCache;
    if (cached?.body === body) return (cached.json ??= Buffer.from(JSON.stringify(body)));
    return Buffer.from(JSON.stringify(body));
  }

  private async computeDashboard(): Promise<DashboardStats> {
    const totals: SensorStats = this.deps.monitoring.totals();
    const c = await this.counts();
    const state = this.deps.monitoring.state();
    return {
      packets: totals.packets,
      bytes: totals.bytes,
      connections: totals.flows + totals.flowsActive,
      threats: c.threats,
      blocked: c.blocked,
      activeFlows: totals.flowsActive,
      unacknowledgedAlerts: c.unack,
      packetsPerSecond: this.lastSecond.packets,
      bitsPerSecond: this.lastSecond.bytes * 8,
      capture: { running: state.running, source: state.source },
      at: new Date(this.deps.clock.now()).toISOString(),
    };
  }

  /** `GET /api/traffic/stats` body. */
  traffic(): TrafficStats {
    const now = this.deps.clock.now();
    const totals = this.deps.monitoring.totals();
    const protocols: TrafficStats['protocols'] = {};
    for (const [name, p] of Object.entries(totals.protocols)) protocols[name] = { packets: p.packets, bytes: p.bytes, flows: p.flows };
    const perSecond: TrafficStats['timeline']['perSecond'] = [];
    const lastSecond = Math.floor(now / SECOND_MS) * SECOND_MS - SECOND_MS;
    for (let t = lastSecond - (SECONDS_KEPT - 1) * SECOND_MS; t <= lastSecond; t += SECOND_MS) {
      perSecond.push({ t: new Date(t).toISOString(), ...(this.seconds.get(t) ?? zero()) });
    }
    const perMinute = [...this.minutes.entries()]
      .filter(([t]) => t >= now - MINUTES_KEPT * MINUTE_MS)
      .sort((a, b) => a[0] - b[0])
      .map(([t, b]) => ({ t: new Date(t).toISOString(), ...b }));
    const decodeErrors = Object.values(totals.decodeErrors).reduce((a, b) => a + b, 0);
    return {
      totals: { packets: totals.packets, bytes: totals.bytes, flows: totals.flows + totals.flowsActive },
      protocols,
      topTalkers: topN(this.talkers, 10).map(([ip, t]) => ({ ip, ...t })),
      topPorts: topN(this.ports, 10).map(([, p]) => ({ ...p })),
      directions: structuredClone(this.directions),
      timeline: { perSecond, perMinute },
      capture: {
        kernelDrops: totals.pcap.dropped,
        interfaceDrops: totals.pcap.ifDropped,
        decodeErrors,
        decodeErrorsByReason: { ...totals.decodeErrors },
        flowsEvicted: totals.flowsEvicted,
        batchesDropped: totals.batchesDropped,
      },
      at: new Date(now).toISOString(),
    };
  }
}
