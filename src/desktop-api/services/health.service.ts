/** `GET /api/health`: capture, database and firewall state in one small document. */
import type { FirewallService, FirewallStatus } from '../../firewall/types.js';
import { storeAnswers, type Store } from '../../store/database.js';
import { suppressionTotals } from '../../store/repos/suppression.repo.js';
import type { Health, HealthReason } from '../schemas/health.schema.js';
import type { Clock } from '../../clock.js';
import type { MonitoringService } from '../../sensor/monitoring.js';
import type { EveExporter } from '../../export/eve-export.js';
import type { EventStreamService } from './event-stream.service.js';

export class HealthService {
  constructor(
    private readonly deps: {
      store: Store;
      monitoring: Pick<MonitoringService, 'state'>;
      firewall: Pick<FirewallService, 'status'>;
      eventStream: Pick<EventStreamService, 'clientCount' | 'slowClientsDropped'>;
      eventsMaxPendingBytes: number;
      /** The alert sinks' state; absent = every sink off. */
      alertSinks?: () => Promise<Health['alertSinks']>;
      clock: Clock;
      version: string;
      startedAtMs: number;
      /** The EVE export; null or absent when it is off. */
      eve?: Pick<EveExporter, 'stats'> | null;
    },
  ) {}

  /**
   * `degraded`, with one reason per failing part, when the database does not answer, capture is not running or has
   * failed, or blocking cannot be enforced: a firewall backend is in use but unavailable, or `auto` found none. The
   * `none` backend chosen explicitly (record-only) is not a failure.
   */
  async health(): Promise<Health> {
    const reasons: HealthReason[] = [];
    const database: Health['database'] = (await storeAnswers(this.deps.store)) ? 'ok' : 'error';
    if (database === 'error') reasons.push({ code: 'database_unavailable', detail: 'The database does not answer.' });
    const capture = this.deps.monitoring.state();
    if (capture.error !== null) reasons.push({ code: 'capture_failed', detail: capture.error });
    else if (!capture.running) reasons.push({ code: 'capture_stopped', detail: 'Capture is not running.' });
    let firewall: Health['firewall'];
    try {
      const s = await this.deps.firewall.status();
      firewall = { backend: s.backend, available: s.available, desired: s.desired, applied: s.applied };
      if (s.error !== undefined) firewall.error = s.error;
      const firewallReason = firewallProblem(s);
      if (firewallReason) reasons.push(firewallReason);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      firewall = { backend: 'unknown', available: false, desired: 0, applied: null, error: message };
      reasons.push({ code: 'firewall_unavailable', detail: message });
    }
    const suppressions =
      database === 'ok' ? await suppressionTotals(this.deps.store, new Date(this.deps.clock.now()).toISOString()) : { rules: 0, active: 0, hits: 0 };
    return {
      status: reasons.length === 0 ? 'ok' : 'degraded',
      reasons,
      version: this.deps.version,
      uptimeSeconds: Math.max(0, Math.floor((this.deps.clock.now() - this.deps.startedAtMs) / 1000)),
      capture,
      database,
      firewall,
      events: {
        clients: this.deps.eventStream.clientCount,
        slowClientsDropped: this.deps.eventStream.slowClientsDropped,
        maxPendingBytes: this.deps.eventsMaxPendingBytes,
      },
      alertSinks: (await this.deps.alertSinks?.().catch(() => null)) ?? { desktop: null, webhooks: null, syslog: null },
      eve: this.deps.eve?.stats() ?? null,
      suppressions,
    };
  }
}

/** Why blocks asked for cannot be enforced, or null when they can (or record-only was chosen). */
function firewallProblem(s: FirewallStatus): HealthReason | null {
  if (s.backend === 'none') {
    if (s.configured === undefined || s.configured === 'none') return null;
    return {
      code: 'firewall_not_enforcing',
      detail: `VIGIL_FIREWALL=${s.configured} found no usable firewall (nftables, iptables + ipset, pf, Windows Firewall): blocks are recorded but not enforced.`,
    };
  }
  if (s.available) return null;
  return { code: 'firewall_unavailable', detail: s.error ?? `The ${s.backend} firewall is unavailable: blocks are not enforced.` };
}
