/**
 * What the page knows, in one place: filled by a few requests at load and then kept current by the event stream
 * (`stats` every second, `alert`, `firewall`, `monitoring`). Views read it and subscribe to changes. What the stream
 * only announces (blocked addresses, capture state) is refetched when an event marks it changed; what it does not
 * carry (threats, traffic tops) at most once per `REFRESH_MS` while a view shows it. So the page stays far under the
 * API's 100 requests per 15 minutes.
 */
import { api } from './api.js';
import type { Alert, AlertList, BlockedEntry, DashboardStats, Health, InterfaceList, ThreatList, TrafficStats } from './types.js';

/** The slowest refresh of a list the stream does not carry: at most one request per list per minute. */
export const REFRESH_MS = 60_000;
/** Points kept by the live chart (one per second). */
export const CHART_POINTS = 300;

type Topic = 'stats' | 'alerts' | 'threats' | 'blocked' | 'traffic' | 'health' | 'interfaces' | 'stream';

export interface Series {
  t: number[];
  packetsPerSecond: number[];
  bitsPerSecond: number[];
  activeFlows: number[];
}

class PageState {
  stats: DashboardStats | null = null;
  traffic: TrafficStats | null = null;
  health: Health | null = null;
  interfaces: InterfaceList['interfaces'] = [];
  /** Newest first. */
  alerts: Alert[] = [];
  alertsNextBefore: number | null = null;
  threats: ThreatList | null = null;
  blocked: BlockedEntry[] | null = null;
  streamConnected = false;
  readonly series: Series = { t: [], packetsPerSecond: [], bitsPerSecond: [], activeFlows: [] };
  private readonly listeners = new Map<Topic, Set<() => void>>();
  private readonly fetchedAt = new Map<Topic, number>();
  private readonly dirty = new Set<Topic>();

  on(topic: Topic, fn: () => void): void {
    let set = this.listeners.get(topic);
    if (!set) this.listeners.set(topic, (set = new Set()));
    set.add(fn);
  }

  emit(topic: Topic): void {
    for (const fn of this.listeners.get(topic) ?? []) fn();
  }

  /**
   * Whether `topic` should be fetched now: never fetched; or older than `maxAgeMs` (lists the stream does not carry);
   * or changed on the server (dirty) and not fetched in the last `minMs`.
   */
  private due(topic: Topic, minMs: number, maxAgeMs: number): boolean {
    const at = this.fetchedAt.get(topic);
    if (at === undefined) return true;
    const age = Date.now() - at;
    return age >= maxAgeMs || (this.dirty.has(topic) && age >= minMs);
  }

  private async load<T>(topic: Topic, path: string, apply: (body: T) => void, force = false, minMs = 15_000, maxAgeMs = REFRESH_MS): Promise<void> {
    if (!force && !this.due(topic, minMs, maxAgeMs)) return;
    this.fetchedAt.set(topic, Date.now());
    this.dirty.delete(topic);
    apply(await api<T>('GET', path));
    this.emit(topic);
  }

  loadStats = (force = false) => this.load<DashboardStats>('stats', '/api/dashboard/stats', (b) => this.applyStats(b), force);
  loadTraffic = (force = false) => this.load<TrafficStats>('traffic', '/api/traffic/stats', (b) => (this.traffic = b), force);
  // Health, interfaces, blocked addresses and alerts change only with events on the stream (monitoring, firewall,
  // alert), which mark them dirty: they are never refetched for age alone.
  loadHealth = (force = false) => this.load<Health>('health', '/api/health', (b) => (this.health = b), force, 2000, Infinity);
  loadInterfaces = (force = false) =>
    this.load<InterfaceList>('interfaces', '/api/monitoring/interfaces', (b) => (this.interfaces = b.interfaces), force, 15_000, Infinity);
  loadThreats = (force = false) => this.load<ThreatList>('threats', '/api/threats', (b) => (this.threats = b), force);
  loadBlocked = (force = false) =>
    this.load<{ blocked: BlockedEntry[] }>('blocked', '/api/firewall/blocked', (b) => (this.blocked = b.blocked), force, 2000, Infinity);
  loadAlerts = (force = false) =>
    this.load<AlertList>(
      'alerts',
      '/api/alerts?limit=100',
      (b) => {
        this.alerts = b.alerts;
        this.alertsNextBefore = b.nextBefore;
      },
      force,
      15_000,
      Infinity,
    );

  /** The next (older) page of alerts. */
  async loadOlderAlerts(): Promise<void> {
    if (this.alertsNextBefore === null) return;
    const page = await api<AlertList>('GET', `/api/alerts?limit=100&before=${this.alertsNextBefore}`);
    const known = new Set(this.alerts.map((a) => a.id));
    this.alerts = [...this.alerts, ...page.alerts.filter((a) => !known.has(a.id))];
    this.alertsNextBefore = page.nextBefore;
    this.emit('alerts');
  }

  /** Marks a list changed on the server: refetched the next time a view needs it (throttled). */
  markDirty(topic: Topic): void {
    this.dirty.add(topic);
  }

  applyStats(s: DashboardStats): void {
    this.stats = s;
    const t = Date.parse(s.at) / 1000;
    const x = this.series;
    if (x.t.length > 0 && t <= x.t[x.t.length - 1]) return this.emit('stats');
    x.t.push(t);
    x.packetsPerSecond.push(s.packetsPerSecond);
    x.bitsPerSecond.push(s.bitsPerSecond);
    x.activeFlows.push(s.activeFlows);
    if (x.t.length > CHART_POINTS) for (const k of ['t', 'packetsPerSecond', 'bitsPerSecond', 'activeFlows'] as const) x[k].shift();
    this.emit('stats');
  }

  /** An `alert` event: the alert itself travels on the stream, so the list is updated without a request. */
  applyAlertEvent(e: { action: string; alert: Record<string, unknown> }): void {
    const alert = e.alert as unknown as Alert;
    const i = this.alerts.findIndex((a) => a.id === alert.id);
    if (e.action === 'deleted') {
      if (i >= 0) this.alerts.splice(i, 1);
    } else if (i >= 0) this.alerts[i] = alert;
    else {
      this.alerts.unshift(alert);
      this.alerts.sort((a, b) => b.id - a.id);
    }
    if (e.action === 'created' || e.action === 'updated') this.markDirty('threats');
    this.emit('alerts');
  }

  /** Replaces one alert (after an action the page made). */
  putAlert(alert: Alert): void {
    this.applyAlertEvent({ action: 'acknowledged', alert: alert as unknown as Record<string, unknown> });
  }

  removeAlert(id: number): void {
    this.alerts = this.alerts.filter((a) => a.id !== id);
    this.emit('alerts');
  }
}

export const state = new PageState();
