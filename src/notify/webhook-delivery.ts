/**
 * Webhook delivery off the hot path: a new alert at or above the threshold becomes one queued row per destination in
 * the store (`store/repos/webhook-delivery.repo.ts`), so the queue survives a restart; this worker sends due rows with
 * a time limit per attempt, retries failures with exponential backoff and jitter, and dead-letters a delivery after
 * its last attempt. Delivery is at least once: a crash between a receiver's 2xx and the row's deletion sends it again
 * with the same `X-Vigil-Delivery` id, which receivers can deduplicate on.
 *
 * Nothing here is awaited by the alert's producer: queueing is one short SQLite transaction, and sending runs on
 * timers with at most {@link MAX_IN_FLIGHT_PER_TARGET} requests per destination, so a hanging destination holds only
 * its own slots until its timeout. Learned from Svix's and GitHub's webhook retry schedules (documented behaviour,
 * no code).
 */
import type { Clock } from '../clock.js';
import type { WebhookTarget } from '../config/notify.js';
import { severityRank, type AlertView, type Severity } from '../domain/alert.js';
import type { Store } from '../store/database.js';
import {
  countWebhookDeliveries,
  deadLetterWebhookDelivery,
  deleteWebhookDelivery,
  dueWebhookDeliveries,
  advanceWebhookAlertMark,
  enqueueWebhookDeliveries,
  latestAlertId,
  nextWebhookAttemptAt,
  webhookAlertMark,
  scheduleWebhookRetry,
} from '../store/repos/webhook-delivery.repo.js';
import type { NewWebhookDelivery, WebhookDeliveryRow } from '../store/tables/webhook-delivery.table.js';
import { ALERT_CREATED_EVENT, buildWebhookRequest, type WebhookRequest } from './webhook-format.js';

/** Concurrent requests to one destination. */
export const MAX_IN_FLIGHT_PER_TARGET = 2;
/** Concurrent requests in all. */
export const MAX_IN_FLIGHT = 8;
/** Longest retry delay, ms (1 h). */
export const MAX_BACKOFF_MS = 3_600_000;
/** How long a row whose outcome could not be recorded is left alone, ms (at least; the backoff's base when longer). */
export const HOLD_AFTER_ERROR_MS = 1000;
/** Bytes of a response body read (so the connection can be reused); the rest is discarded with the connection. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/** Settings of the webhook worker (from `config/notify.ts`). */
export interface WebhookDeliveryOptions {
  targets: readonly WebhookTarget[];
  secret: string | undefined;
  minSeverity: Severity;
  maxAttempts: number;
  timeoutMs: number;
  backoffMs: number;
  queueMax: number;
  dashboardUrl: string;
}

/** Outcome counters since start (`/api/health` `alertSinks.webhooks`). */
export interface WebhookCounters {
  /** Deliveries queued (one per alert and destination). */
  queued: number;
  /** Deliveries a destination accepted (2xx). */
  delivered: number;
  /** Attempts that failed (non-2xx, network error or timeout). */
  failedAttempts: number;
  /** Of those, attempts that ran out of time. */
  timedOut: number;
  /** Failed attempts scheduled again. */
  retried: number;
  /** Deliveries given up on after the last attempt. */
  deadLettered: number;
  /** Queued deliveries dropped because the queue was full (the oldest go first). */
  dropped: number;
  /** Alerts an earlier run stored but died before queueing, queued at this start. */
  recovered: number;
}

/** The worker's state for health. */
export interface WebhookStatus extends WebhookCounters {
  destinations: number;
  /** Requests being sent now. */
  inFlight: number;
  /** Rows waiting in the store, and dead letters kept. */
  pending: number;
  dead: number;
  /** The last failure, e.g. `slack hooks.slack.com: HTTP 500` (format and host, never the path); null when none yet. */
  lastError: string | null;
}

/** What the worker is built from. */
export interface WebhookDeliveryDeps {
  store: Store;
  clock: Clock;
  options: WebhookDeliveryOptions;
  /** 0..1; injectable so tests can pin the jitter. Default Math.random. */
  random?: () => number;
  /**
   * The stored alerts with `afterId < id <= throughId`, oldest first, at most `limit`, as `GET /api/alerts/:id` shows
   * them: at start, the alerts an earlier run stored but died before queueing are queued (see {@link reconcile}).
   * Without it nothing is recovered.
   */
  alertsInRange?: (afterId: number, throughId: number, limit: number) => Promise<AlertView[]>;
  log?: (message: string) => void;
}

/** The delay before attempt `attempts + 1`, after `attempts` failures: base·2^(n-1), capped, scaled by 0.5..1 (jitter). */
export function backoffDelayMs(baseMs: number, attempts: number, random: number): number {
  const exp = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.max(1, Math.round(exp * (0.5 + 0.5 * random)));
}

/**
 * Reads and drops a response body up to {@link MAX_RESPONSE_BYTES} (bounded in time by the request's signal), so the
 * connection can be reused; a longer body is cancelled, which closes the connection, rather than held in memory.
 */
async function discardBody(res: Response): Promise<void> {
  if (res.body === null) return;
  const reader = res.body.getReader();
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      bytes += value.byteLength;
      if (bytes > MAX_RESPONSE_BYTES) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // The answer's status is what counts; a body cut short changes nothing.
  }
}

/** The configured form of a target (`[format+]url`), as stored in the queue. */
export function targetKey(t: WebhookTarget): string {
  return t.format === 'generic' ? t.url : `${t.format}+${t.url}`;
}

/** The webhook worker: {@link enqueue} from the alert sinks, {@link start}/{@link stop} by the composition root. */
export class WebhookDelivery {
  private readonly counters: WebhookCounters = {
    queued: 0,
    delivered: 0,
    failedAttempts: 0,
    timedOut: 0,
    retried: 0,
    deadLettered: 0,
    dropped: 0,
    recovered: 0,
  };
  private readonly byKey: Map<string, WebhookTarget>;
  private readonly inFlight = new Map<number, { target: string; abort: AbortController; done: Promise<void> }>();
  private timer: NodeJS.Timeout | null = null;
  /** Rows left alone until the time given (epoch ms) after their outcome could not be recorded. */
  private readonly held = new Map<number, number>();
  private running = false;
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  private writes: Promise<unknown> = Promise.resolve();
  /** Rows waiting for the next write, and the promise of that write. */
  private batch: NewWebhookDelivery[] = [];
  private batchWritten: Promise<void> | null = null;
  /** Pending rows in the store (this worker is their only writer), counted at the first write; null until then. */
  private pendingRows: number | null = null;
  private lastError: string | null = null;
  /** The start's recovery of unqueued alerts ({@link reconcile}); resolved when done or failed. */
  private reconciling: Promise<void> = Promise.resolve();

  constructor(private readonly deps: WebhookDeliveryDeps) {
    this.byKey = new Map(deps.options.targets.map((t) => [targetKey(t), t]));
  }

  /** Starts sending; rows left in the store by an earlier run are picked up at once, and its unqueued alerts queued. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.reconciling = this.reconcile().catch((err: unknown) => {
      this.deps.log?.(`vigil: webhook queue: recovering unqueued alerts failed: ${err instanceof Error ? err.message : String(err)}`);
    });
    this.kick();
  }

  /**
   * An alert is stored (the detection batch's transaction) before the webhook queue takes it (the next tick), so a run
   * that dies in between leaves alerts nobody will send. The queue keeps a mark in the store, raised in the same
   * transaction as its rows: the highest alert id taken care of. At start, the alerts stored above the mark up to the
   * newest one of now (so this run's own alerts, which come through {@link enqueue}, are never taken twice) are queued
   * as `alert.created` when they are at or above the threshold, and the mark is raised past them. The first start with
   * webhooks sets the mark to the newest alert: older alerts are not sent.
   */
  private async reconcile(): Promise<void> {
    const { store } = this.deps;
    const latest = await latestAlertId(store);
    const mark = await webhookAlertMark(store);
    if (mark !== undefined && this.deps.alertsInRange && latest > mark) {
      const missed = await this.deps.alertsInRange(mark, latest, this.deps.options.queueMax);
      const queued = missed.map((a) => this.enqueue(a));
      await Promise.all(queued);
      this.counters.recovered += missed.filter((a) => severityRank(a.severity) >= severityRank(this.deps.options.minSeverity)).length;
    }
    await advanceWebhookAlertMark(store, latest);
  }

  /**
   * Stops sending: aborts requests in flight (their rows stay pending, without an attempt counted, and are sent at the
   * next start) and waits for queue writes to finish. Idempotent.
   */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    for (const f of this.inFlight.values()) f.abort.abort(new Error('stopping'));
    await Promise.allSettled([...this.inFlight.values()].map((f) => f.done));
    await this.reconciling;
    await this.pumping;
    await this.writes.catch(() => undefined);
  }

  /**
   * Queues `alert` for every destination when it is at or above the threshold. Never throws; resolves once stored.
   * The alerts of one detection batch arrive in one tick and are written in one transaction (one SQLite commit per
   * batch rather than per alert: the store's thread is the pipeline's).
   */
  enqueue(alert: AlertView, event = ALERT_CREATED_EVENT): Promise<void> {
    const { options } = this.deps;
    if (options.targets.length === 0 || severityRank(alert.severity) < severityRank(options.minSeverity)) return Promise.resolve();
    const now = this.deps.clock.now();
    const alertJson = JSON.stringify(alert);
    for (const t of options.targets) {
      this.batch.push({
        target: targetKey(t),
        event,
        alert_id: alert.id,
        alert_json: alertJson,
        created_at_ms: now,
        next_attempt_at_ms: now,
        last_error: null,
      });
    }
    if (this.batchWritten === null) {
      const previous = this.writes;
      this.batchWritten = new Promise<void>((resolve) => setImmediate(resolve)).then(() => previous).then(() => this.writeBatch());
      this.writes = this.batchWritten;
    }
    return this.batchWritten;
  }

  /** Writes the alerts queued since the last write, dropping the oldest waiting rows beyond the queue's bound. */
  private async writeBatch(): Promise<void> {
    const rows = this.batch;
    this.batch = [];
    this.batchWritten = null;
    try {
      this.pendingRows ??= (await countWebhookDeliveries(this.deps.store)).pending;
      const excess = Math.max(0, this.pendingRows + rows.length - this.deps.options.queueMax);
      const dropped = await enqueueWebhookDeliveries(this.deps.store, rows.slice(Math.max(0, rows.length - this.deps.options.queueMax)), excess);
      // More new rows than the bound: the oldest of them are dropped without being written.
      const unwritten = Math.max(0, rows.length - this.deps.options.queueMax);
      this.pendingRows += rows.length - unwritten - dropped;
      this.counters.dropped += dropped + unwritten;
      this.counters.queued += rows.length;
      this.kick();
    } catch (err) {
      this.deps.log?.(`vigil: webhook queue write failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Counters and queue sizes. */
  async status(): Promise<WebhookStatus> {
    const { pending, dead } = await countWebhookDeliveries(this.deps.store);
    return { ...this.counters, destinations: this.byKey.size, inFlight: this.inFlight.size, pending, dead, lastError: this.lastError };
  }

  /** Resolves when nothing is in flight and nothing is due now (tests, shutdown). */
  async idle(): Promise<void> {
    for (;;) {
      await this.writes;
      await this.pumping;
      if (this.inFlight.size === 0) {
        const next = await nextWebhookAttemptAt(this.deps.store);
        if (next === null || next > this.deps.clock.now()) return;
      }
      await Promise.race([...[...this.inFlight.values()].map((f) => f.done), new Promise((r) => setTimeout(r, 5))]);
    }
  }

  /** A pending row left the queue (delivered or dead-lettered); false when it had been dropped meanwhile. */
  private settled(wasPending: boolean): void {
    if (wasPending && this.pendingRows !== null) this.pendingRows = Math.max(0, this.pendingRows - 1);
  }

  /** Runs {@link pump} now (once more if it is already running). */
  private kick(): void {
    if (!this.running) return;
    if (this.pumping !== null) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = (async () => {
      do {
        this.pumpAgain = false;
        try {
          await this.pump();
        } catch (err) {
          this.deps.log?.(`vigil: webhook queue read failed: ${err instanceof Error ? err.message : String(err)}`);
        }
      } while (this.pumpAgain && this.running);
      this.pumping = null;
    })();
  }

  /**
   * Starts due deliveries within the in-flight bounds, then sets the timer for the next one that could start. Rows of
   * destinations whose slots are all taken wait for a request to end (which runs this again), not for a timer.
   */
  private async pump(): Promise<void> {
    if (!this.running) return;
    const now = this.deps.clock.now();
    for (const [id, until] of this.held) if (until <= now) this.held.delete(id);
    const excluded = (): number[] => [...this.inFlight.keys(), ...this.held.keys()];
    if (this.inFlight.size < MAX_IN_FLIGHT) {
      const due = await dueWebhookDeliveries(this.deps.store, now, 64, excluded(), this.saturatedTargets());
      for (const row of due) {
        if (this.inFlight.size >= MAX_IN_FLIGHT) break;
        if (this.requestsTo(row.target) >= MAX_IN_FLIGHT_PER_TARGET) continue;
        this.send(row);
      }
    }
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (!this.running) return;
    // Every slot taken: nothing can start before a request ends, which runs this again (no need to look).
    const next = this.inFlight.size >= MAX_IN_FLIGHT ? null : await nextWebhookAttemptAt(this.deps.store, excluded(), this.saturatedTargets());
    // A row that could start now but did not: every slot is taken, and the end of a request runs this again.
    const at = [next !== null && (next > now || this.inFlight.size < MAX_IN_FLIGHT) ? next : null, ...this.held.values()].filter(
      (t): t is number => t !== null,
    );
    if (at.length === 0 || !this.running) return; // stop() may have run during the query
    const wait = Math.max(Math.min(...at) - this.deps.clock.now(), 10);
    this.timer = setTimeout(() => this.kick(), Math.min(wait, MAX_BACKOFF_MS));
    this.timer.unref();
  }

  /** Requests in flight to `target`. */
  private requestsTo(target: string): number {
    let n = 0;
    for (const f of this.inFlight.values()) if (f.target === target) n++;
    return n;
  }

  /** Destinations with all {@link MAX_IN_FLIGHT_PER_TARGET} slots taken. */
  private saturatedTargets(): string[] {
    return [...new Set([...this.inFlight.values()].map((f) => f.target))].filter((t) => this.requestsTo(t) >= MAX_IN_FLIGHT_PER_TARGET);
  }

  /**
   * One attempt of `row`, recorded in the store when it ends. When recording fails (the store refuses a write), the
   * row is held back for a while rather than picked again at once, which would spin.
   */
  private send(row: WebhookDeliveryRow): void {
    const abort = new AbortController();
    const entry = { target: row.target, abort, done: Promise.resolve() };
    entry.done = this.attempt(row, abort)
      .catch((err: unknown) => {
        this.held.set(row.id, this.deps.clock.now() + Math.max(HOLD_AFTER_ERROR_MS, this.deps.options.backoffMs));
        this.deps.log?.(`vigil: webhook queue write failed: ${err instanceof Error ? err.message : String(err)}`);
      })
      .finally(() => {
        this.inFlight.delete(row.id);
        this.kick();
      });
    this.inFlight.set(row.id, entry);
  }

  private async attempt(row: WebhookDeliveryRow, abort: AbortController): Promise<void> {
    const { options } = this.deps;
    const target = this.byKey.get(row.target);
    const attempts = row.attempts + 1;
    let error: string;
    if (target === undefined) {
      // Queued by an earlier run for a destination no longer configured: kept as a dead letter, not sent.
      error = 'destination no longer configured';
      this.settled(await deadLetterWebhookDelivery(this.deps.store, row.id, row.attempts, error, options.queueMax));
      this.counters.deadLettered++;
      return;
    }
    let request: WebhookRequest;
    try {
      request = buildWebhookRequest({
        target,
        event: row.event,
        alert: JSON.parse(row.alert_json) as AlertView,
        deliveryId: row.id,
        nowMs: this.deps.clock.now(),
        secret: options.secret,
        dashboardUrl: options.dashboardUrl,
      });
    } catch (err) {
      // A row no attempt can ever send (its alert is not JSON): kept as a dead letter, not retried.
      error = `unreadable queued alert: ${err instanceof Error ? err.message : String(err)}`;
      this.settled(await deadLetterWebhookDelivery(this.deps.store, row.id, row.attempts, error, options.queueMax));
      this.counters.deadLettered++;
      return;
    }
    const timeout = AbortSignal.timeout(options.timeoutMs);
    try {
      const res = await fetch(request.url, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
        redirect: 'manual',
        signal: AbortSignal.any([abort.signal, timeout]),
      });
      await discardBody(res);
      if (res.status >= 200 && res.status < 300) {
        this.settled(await deleteWebhookDelivery(this.deps.store, row.id));
        this.counters.delivered++;
        return;
      }
      error = `HTTP ${res.status}`;
    } catch (err) {
      if (abort.signal.aborted) return; // stopping: the row stays pending, no attempt counted
      if (timeout.aborted) {
        this.counters.timedOut++;
        error = `no answer within ${options.timeoutMs} ms`;
      } else {
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        error = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
      }
    }
    this.counters.failedAttempts++;
    // The host only: a chat webhook's path is its credential, and health is readable by any paired client.
    this.lastError = `${target.format} ${new URL(target.url).host}: ${error}`;
    if (attempts >= options.maxAttempts) {
      this.settled(await deadLetterWebhookDelivery(this.deps.store, row.id, attempts, error, options.queueMax));
      this.counters.deadLettered++;
      this.deps.log?.(`vigil: webhook to ${new URL(target.url).host} gave up on alert ${row.alert_id} after ${attempts} attempts: ${error}`);
      return;
    }
    const delay = backoffDelayMs(options.backoffMs, attempts, (this.deps.random ?? Math.random)());
    await scheduleWebhookRetry(this.deps.store, row.id, attempts, this.deps.clock.now() + delay, error);
    this.counters.retried++;
  }
}
