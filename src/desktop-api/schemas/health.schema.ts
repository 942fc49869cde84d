/** `GET /api/health`. */
import { z } from 'zod';
import type { MonitoringState } from '../../sensor/monitoring.js';
import { isoTime } from './common.schema.js';

/** Capture state as reported by health and the monitoring routes: describes the sensor's {@link MonitoringState}. */
export const monitoringStateSchema = z.object({
  running: z.boolean(),
  /** `live`, `replay` or null when nothing has been started. */
  source: z.enum(['live', 'replay']).nullable(),
  startedAt: isoTime.nullable(),
  interface: z.string().nullable(),
  /** File name (not path) of the replayed capture. */
  file: z.string().nullable(),
  /** True when the bundled sample capture is replayed (live capture not configured or not permitted). */
  sample: z.boolean(),
  filter: z.string().nullable(),
  /** Human summary, e.g. "live capture on eth0" or "replay of the bundled sample capture ...". */
  description: z.string(),
  /** Why live capture was not used, when it was not. */
  fallbackReason: z.string().nullable(),
  /**
   * True when what is captured is stored in the sample-data store (`sample-data.db` in the data directory), apart from
   * the user's own: Vigil started without live capture and shows the bundled demo capture.
   */
  sampleStore: z.boolean(),
  /** Last capture error after start, if any. */
  error: z.string().nullable(),
});

/** Why health is `degraded`: one entry per failing part, in the order database, capture, firewall. */
export const HEALTH_REASON_CODES = [
  /** The SQLite store does not answer. */
  'database_unavailable',
  /** Capture is not running (stopped, or a replay that has ended). */
  'capture_stopped',
  /** Capture failed after it started (`capture.error`). */
  'capture_failed',
  /** A firewall backend is in use but the OS refuses it (no privilege, missing table, failed re-assert): blocks are not enforced. */
  'firewall_unavailable',
  /** VIGIL_FIREWALL=auto found no firewall tool, so blocks are recorded only (`none` chosen explicitly is not a reason). */
  'firewall_not_enforcing',
] as const;

export const healthReasonSchema = z.object({
  code: z.enum(HEALTH_REASON_CODES),
  /** What failed, in words (the firewall's or the capture's error message when there is one). */
  detail: z.string(),
});

export type HealthReason = z.infer<typeof healthReasonSchema>;

export const healthSchema = z.object({
  /** `ok` when `reasons` is empty, `degraded` otherwise. */
  status: z.enum(['ok', 'degraded']),
  reasons: z.array(healthReasonSchema),
  version: z.string(),
  uptimeSeconds: z.number().int().min(0),
  capture: monitoringStateSchema,
  database: z.enum(['ok', 'error']),
  firewall: z.object({
    backend: z.string(),
    available: z.boolean(),
    /** Blocks in the store (desired state) and in the OS (applied; null when the backend cannot list them). */
    desired: z.number().int().min(0),
    applied: z.number().int().min(0).nullable(),
    error: z.string().optional(),
  }),
  /** The event stream (`GET /api/events`). */
  events: z.object({
    /** Connected clients. */
    clients: z.number().int().min(0),
    /** Clients dropped since start because they stopped reading: more than `maxPendingBytes` would have waited unsent. */
    slowClientsDropped: z.number().int().min(0),
    /** The bound per client (VIGIL_EVENTS_MAX_PENDING_BYTES). */
    maxPendingBytes: z.number().int().min(1),
  }),
  /** Where new alerts go besides the store (docs/notifications.md); a sink that is off is null. */
  alertSinks: z.object({
    desktop: z
      .object({
        /** `freedesktop`, `osascript` or `windows-toast`. */
        backend: z.string(),
        /** Notifications shown, and the alerts folded into them. */
        shown: z.number().int().min(0),
        alerts: z.number().int().min(0),
        failed: z.number().int().min(0),
        lastError: z.string().nullable(),
      })
      .nullable(),
    webhooks: z
      .object({
        destinations: z.number().int().min(0),
        /** Deliveries queued since start (one per alert and destination). */
        queued: z.number().int().min(0),
        /** Deliveries a destination accepted (2xx). */
        delivered: z.number().int().min(0),
        /** Attempts that failed (non-2xx, network error, timeout), and of those the timeouts. */
        failedAttempts: z.number().int().min(0),
        timedOut: z.number().int().min(0),
        /** Failed attempts scheduled again (exponential backoff with jitter). */
        retried: z.number().int().min(0),
        /** Deliveries given up on after VIGIL_WEBHOOK_MAX_ATTEMPTS (kept in the store as dead letters). */
        deadLettered: z.number().int().min(0),
        /** Queued deliveries dropped because the queue held VIGIL_WEBHOOK_QUEUE_MAX. */
        dropped: z.number().int().min(0),
        /** Alerts an earlier run stored but died before queueing, queued at this start. */
        recovered: z.number().int().min(0),
        /** Requests being sent now. */
        inFlight: z.number().int().min(0),
        /** Deliveries waiting in the store, and dead letters kept. */
        pending: z.number().int().min(0),
        dead: z.number().int().min(0),
        /** The last failure (format and host, never the URL's path). */
        lastError: z.string().nullable(),
      })
      .nullable(),
    syslog: z
      .object({
        target: z.string(),
        sent: z.number().int().min(0),
        dropped: z.number().int().min(0),
        errors: z.number().int().min(0),
        connected: z.boolean(),
        lastError: z.string().nullable(),
      })
      .nullable(),
  }),
  /** The EVE JSON export (`VIGIL_EVE_FILE`); null when it is off. Counters since start. */
  eve: z
    .object({
      /** The live file's path. */
      file: z.string(),
      /** Records queued, by kind. */
      flows: z.number().int().min(0),
      alerts: z.number().int().min(0),
      /** Records written to disk and their bytes. */
      written: z.number().int().min(0),
      bytes: z.number().int().min(0),
      /** Records dropped: the queue (VIGIL_EVE_QUEUE_MB) was full, or the disk refused them. Capture never waits. */
      dropped: z.number().int().min(0),
      rotations: z.number().int().min(0),
      /** Reopens of the path (SIGHUP). */
      reopens: z.number().int().min(0),
      /** Failed opens, writes and renames. */
      errors: z.number().int().min(0),
      /** Bytes waiting to be written now. */
      queuedBytes: z.number().int().min(0),
    })
    .nullable(),
  /** Suppression rules (`/api/suppressions`): stored, in force now, and findings they silenced in all. */
  suppressions: z.object({
    rules: z.number().int().min(0),
    active: z.number().int().min(0),
    hits: z.number().int().min(0),
  }),
});

export type Health = z.infer<typeof healthSchema>;

/** True when A and B are the same type (optional, readonly and nullable modifiers included), else false. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compiles only when `T` is `true`. */
type Assert<T extends true> = T;
/**
 * Compile-time check (nothing runs): the schema and the sensor's state type are identical, so a field added, removed
 * or retyped on either side fails `npm run typecheck` instead of drifting apart.
 */
export type MonitoringStateSchemaMatches = Assert<Equal<z.infer<typeof monitoringStateSchema>, MonitoringState>>;
