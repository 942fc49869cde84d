/** The `webhook_deliveries` table: the webhook queue kept in the store (waiting deliveries and dead letters). */
import type { Generated, Insertable, Selectable } from 'kysely';

export interface WebhookDeliveryTable {
  id: Generated<number>;
  /** The destination as configured: `[format+]url`. */
  target: string;
  /** The event that queued it (`alert.created`). */
  event: string;
  alert_id: number;
  /** The alert as `GET /api/alerts/:id` showed it when it was queued (JSON). */
  alert_json: string;
  /** `pending` (waiting for its next attempt) or `dead` (gave up after the last attempt). */
  state: Generated<'pending' | 'dead'>;
  /** Attempts made so far. */
  attempts: Generated<number>;
  /** Epoch ms it was queued. */
  created_at_ms: number;
  /** Epoch ms of the next attempt (pending rows). */
  next_attempt_at_ms: number;
  /** Why the last attempt failed (HTTP status or error), or null. */
  last_error: string | null;
}

export type WebhookDeliveryRow = Selectable<WebhookDeliveryTable>;
export type NewWebhookDelivery = Insertable<WebhookDeliveryTable>;
