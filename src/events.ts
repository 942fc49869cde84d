/**
 * The in-process event bus: services publish, the desktop API's `/api/events` stream (and anything else) subscribes.
 * Payloads are plain JSON-serialisable objects.
 */
import { EventEmitter } from 'node:events';

/** Event name → payload. */
export interface VigilEventMap {
  /**
   * An alert was raised or its aggregate updated (count/lastSeen) or acknowledged/deleted. On an `updated` by new
   * evidence, `previousSeverity` is the alert's severity before it, so a subscriber can tell an alert that has just
   * reached its threshold (a scan opened `low` by the model and raised to `high` by the scan rule).
   */
  alert: { action: 'created' | 'updated' | 'acknowledged' | 'deleted'; alert: Record<string, unknown>; previousSeverity?: string };
  /** A firewall block/unblock/expiry happened. */
  firewall: { action: 'blocked' | 'unblocked' | 'expired'; ip: string; reason: string | null; source: string; at: string };
  /** Capture started/stopped/failed. */
  monitoring: { running: boolean; source: string | null; startedAt: string | null; error?: string };
  /** Once per second: live counters (shape defined by the desktop API's stats service). */
  stats: Record<string, unknown>;
}

export type VigilEventName = keyof VigilEventMap;

/** Typed wrapper around EventEmitter. */
export class EventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  emit<E extends VigilEventName>(event: E, payload: VigilEventMap[E]): void {
    this.emitter.emit(event, payload);
  }

  on<E extends VigilEventName>(event: E, listener: (payload: VigilEventMap[E]) => void): () => void {
    this.emitter.on(event, listener);
    return () => this.emitter.off(event, listener);
  }
}
