/** `GET /api/health`: capture, database and firewall state in one small document. */
import type { FirewallService } from '../../firewall/types.js';
import { storeAnswers, type Store } from '../../store/database.js';
import type { Health } from '../schemas/health.schema.js';
import type { Clock } from '../../clock.js';
import type { MonitoringService } from '../../sensor/monitoring.js';

export class HealthService {
  constructor(
    private readonly deps: {
      store: Store;
      monitoring: Pick<MonitoringService, 'state'>;
      firewall: Pick<FirewallService, 'status'>;
      clock: Clock;
      version: string;
      startedAtMs: number;
    },
  ) {}

  /** `degraded` when the database does not answer, capture is not running or has failed. */
  async health(): Promise<Health> {
    const database: Health['database'] = (await storeAnswers(this.deps.store)) ? 'ok' : 'error';
    let firewall: Health['firewall'];
    try {
      const s = await this.deps.firewall.status();
      firewall = { backend: s.backend, available: s.available, desired: s.desired, applied: s.applied };
      if (s.error !== undefined) firewall.error = s.error;
    } catch (err) {
      firewall = { backend: 'unknown', available: false, desired: 0, applied: null, error: err instanceof Error ? err.message : String(err) };
    }
    const capture = this.deps.monitoring.state();
    const ok = database === 'ok' && capture.running && capture.error === null;
    return {
      status: ok ? 'ok' : 'degraded',
      version: this.deps.version,
      uptimeSeconds: Math.max(0, Math.floor((this.deps.clock.now() - this.deps.startedAtMs) / 1000)),
      capture,
      database,
      firewall,
    };
  }
}
