/**
 * The API's bodies as the page reads them: the desktop API's own types (derived from the zod schemas the routes use),
 * imported as types only, so they are defined once and the bundle carries none of the server's code.
 */
export type { AlertView as Alert } from '../../src/domain/alert.js';
export type { AlertList } from '../../src/desktop-api/schemas/alert.schema.js';
export type { DashboardStats, TrafficStats } from '../../src/desktop-api/schemas/stats.schema.js';
import type { Threat } from '../../src/desktop-api/schemas/threat.schema.js';

export type { Threat };
export type { Flow, FlowList } from '../../src/desktop-api/schemas/flow.schema.js';
export type { InterfaceList } from '../../src/desktop-api/schemas/monitoring.schema.js';
export type { BlockedEntry } from '../../src/desktop-api/schemas/firewall.schema.js';
export type { Suppression, SuppressionList } from '../../src/desktop-api/schemas/suppression.schema.js';

/** `GET /api/threats`. */
export interface ThreatList {
  threats: Threat[];
  attribution: { text: string; url: string };
}

/** `GET /api/health`'s capture part (what the page shows of it). */
export interface Health {
  status: string;
  capture: {
    running: boolean;
    source: 'live' | 'replay' | null;
    interface: string | null;
    file: string | null;
    sample: boolean;
    description: string;
    fallbackReason: string | null;
    sampleStore: boolean;
    error: string | null;
  };
}

/** `GET /api/pairing`. */
export interface Pairing {
  url: string;
  token: string;
  link: string;
}
