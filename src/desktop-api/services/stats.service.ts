/**
 * The dashboard and traffic bodies: the sensor's live statistics and totals plus the store's counters (unacknowledged
 * alerts, open threats, blocks), with short-lived caches, mapped to JSON. Publishes the dashboard body as the `stats`
 * event after every second the live statistics close.
 */
import type { EventBus } from '../../events.js';
import type { SensorStats } from '../../native/types.js';
import type { FirewallService } from '../../firewall/types.js';
import type { Store } from '../../store/database.js';
import { countUnacknowledged } from '../../store/repos/alert.repo.js';
import { countOpenThreats } from '../../store/repos/threat.repo.js';
import type { DashboardStats, TrafficStats } from '../schemas/stats.schema.js';
import type { Clock } from '../../clock.js';
import type { LiveStats, TimelineBucket } from '../../sensor/live-stats.js';
import type { MonitoringService } from '../../sensor/monitoring.js';

/** Threats detection updated within this window count as open on the dashboard. */
const OPEN_THREAT_MS = 24 * 3_600_000;
/** Dashboard database counters are reused for this long unless an alert/firewall event invalidates them. */
const COUNT_CACHE_MS = 1000;
/** A dashboard body is reused for this long (10 refreshes per second at most) unless an event invalidates it. */
const DASHBOARD_CACHE_MS = 100;
/** Entries of the top talker, port, domain and application lists. */
const TOP_N = 10;

/** Dependencies of {@link StatsService}. */
export interface StatsDeps {
  store: Store;
  /** The sensor's live statistics (rates, timelines, talkers, ports, domains, applications, programs, directions); its ticks publish `stats`. */
  live: Pick<
    LiveStats,
    | 'running'
    | 'onTick'
    | 'lastSecond'
    | 'perSecond'
    | 'perMinute'
    | 'topTalkers'
    | 'topPorts'
    | 'topDomains'
    | 'topApplications'
    | 'topPrograms'
    | 'directionCounts'
  >;
  monitoring: Pick<MonitoringService, 'totals' | 'state'>;
  firewall: Pick<FirewallService, 'list'>;
  events: EventBus;
  clock: Clock;
}

/** A dashboard body and when, and from which live second, it was computed. */
interface DashboardCache {
  at: number;
  /** A newer closed second makes the body stale. */
  second: Readonly<TimelineBucket>;
  body: DashboardStats;
  /** The body serialised, once asked for. */
  json?: Buffer;
}

/** A timeline bucket as the API shows it. */
const toBucket = (b: TimelineBucket): TrafficStats['timeline']['perSecond'][number] => ({
  t: new Date(b.startMs).toISOString(),
  packets: b.packets,
  bytes: b.bytes,
  flows: b.flows,
});

/** Statistics behind `/api/dashboard/stats`, `/api/traffic/stats` and the `stats` events. */
export class StatsService {
  private readonly deps: StatsDeps;
  private countCache: { at: number; unack: number; threats: number; blocked: number } | null = null;
  private dashboardCache: DashboardCache | null = null;
  private readonly unsubscribe: Array<() => void> = [];

  /** Subscribes to alert/firewall events (they invalidate the caches) and to the live statistics' ticks. */
  constructor(deps: StatsDeps) {
    this.deps = deps;
    const invalidate = (): void => {
      this.countCache = null;
      this.dashboardCache = null;
    };
    this.unsubscribe.push(
      deps.events.on('alert', invalidate),
      deps.events.on('firewall', invalidate),
      // The final flush of a stopping LiveStats is not published.
      deps.live.onTick(async () => {
        if (this.deps.live.running) this.deps.events.emit('stats', await this.dashboard());
      }),
    );
  }

  /** Unsubscribes: no more `stats` events. Idempotent. */
  close(): void {
    for (const u of this.unsubscribe.splice(0)) u();
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

  /** The cached dashboard while it is fresh (under 100 ms old, same live second), else null. */
  private freshDashboard(): DashboardCache | null {
    const cached = this.dashboardCache;
    if (cached === null || cached.second !== this.deps.live.lastSecond()) return null;
    const now = this.deps.clock.now();
    return now - cached.at < DASHBOARD_CACHE_MS && now >= cached.at ? cached : null;
  }

  /** `GET /api/dashboard/stats` body (recomputed at most every 100 ms, or at once after a tick or an alert/firewall event). */
  async dashboard(): Promise<DashboardStats> {
    const cached = this.freshDashboard();
    if (cached !== null) return cached.body;
    const now = this.deps.clock.now();
    const second = this.deps.live.lastSecond();
    const body = await this.computeDashboard();
    this.dashboardCache = { at: now, second, body };
    return body;
  }

  /**
   * The cached dashboard as UTF-8 JSON when the cache is still fresh, else null (then call {@link dashboardJson}): lets
   * the route answer the common case without a promise.
   */
  cachedDashboardJson(): Buffer | null {
    const cached = this.freshDashboard();
    if (cached === null) return null;
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
    const second = this.deps.live.lastSecond();
    return {
      packets: totals.packets,
      bytes: totals.bytes,
      connections: totals.flows + totals.flowsActive,
      threats: c.threats,
      blocked: c.blocked,
      activeFlows: totals.flowsActive,
      unacknowledgedAlerts: c.unack,
      packetsPerSecond: second.packets,
      bitsPerSecond: second.bytes * 8,
      capture: { running: state.running, source: state.source },
      at: new Date(this.deps.clock.now()).toISOString(),
    };
  }

  /** `GET /api/traffic/stats` body. */
  traffic(): TrafficStats {
    const now = this.deps.clock.now();
    const totals = this.deps.monitoring.totals();
    const live = this.deps.live;
    const protocols: TrafficStats['protocols'] = {};
    for (const [name, p] of Object.entries(totals.protocols)) protocols[name] = { packets: p.packets, bytes: p.bytes, flows: p.flows };
    const decodeErrors = Object.values(totals.decodeErrors).reduce((a, b) => a + b, 0);
    return {
      totals: { packets: totals.packets, bytes: totals.bytes, flows: totals.flows + totals.flowsActive },
      protocols,
      topTalkers: live.topTalkers(TOP_N),
      topPorts: live.topPorts(TOP_N),
      topDomains: live.topDomains(TOP_N),
      topApplications: live.topApplications(TOP_N),
      topPrograms: live.topPrograms(TOP_N),
      directions: live.directionCounts(),
      timeline: { perSecond: live.perSecond().map(toBucket), perMinute: live.perMinute().map(toBucket) },
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
