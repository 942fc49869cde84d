/** What every route file receives: the services of the desktop API (built by app.ts from its dependencies). */
import type { FirewallService } from '../../firewall/types.js';
import type { AlertsService } from '../services/alerts.service.js';
import type { DashboardPage } from '../services/dashboard-page.service.js';
import type { EventStreamService } from '../services/event-stream.service.js';
import type { FlowsService } from '../services/flows.service.js';
import type { HealthService } from '../services/health.service.js';
import type { MlStatsService } from '../services/ml-stats.service.js';
import type { MonitoringService } from '../../sensor/monitoring.js';
import type { StatsService } from '../services/stats.service.js';
import type { SuppressionsService } from '../services/suppressions.service.js';
import type { ThreatsService } from '../services/threats.service.js';

export interface RouteDeps {
  health: HealthService;
  stats: StatsService;
  alerts: AlertsService;
  suppressions: SuppressionsService;
  threats: ThreatsService;
  monitoring: MonitoringService;
  firewall: FirewallService;
  mlStats: MlStatsService;
  eventStream: EventStreamService;
  flows: FlowsService;
  /** The dashboard's HTML shell and bundle. */
  page: DashboardPage;
  /** The pairing token and the URL a phone should use (the pairing view); default URL: the page's own. */
  pairingToken: string;
  pairingUrl: (() => string) | undefined;
  /** The OpenAPI document served at /api/openapi.json. */
  openapi: unknown;
  /** Interval of SSE keep-alive comments, ms. */
  heartbeatMs: number;
  /** Bytes an event-stream client may have waiting unsent before it is dropped (VIGIL_EVENTS_MAX_PENDING_BYTES). */
  eventsMaxPendingBytes: number;
}
