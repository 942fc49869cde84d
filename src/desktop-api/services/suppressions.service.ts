/**
 * Suppression rules as the desktop API shows them: create (from a body or from an alert), list with hit counts, delete.
 * Detection applies the rules (src/detect/suppressions.ts); this service only writes and reads them.
 */
import type { Clock } from '../../clock.js';
import { NotFoundError, ValidationError } from '../../errors.js';
import { parseAddress, tryParseAddress } from '../../net/cidr.js';
import type { Store } from '../../store/database.js';
import { getAlert } from '../../store/repos/alert.repo.js';
import { deleteSuppression, insertSuppression, listSuppressions } from '../../store/repos/suppression.repo.js';
import type { SuppressionRow } from '../../store/tables/suppression.table.js';
import type { SuppressAlertBody, Suppression, SuppressionBody, SuppressionList } from '../schemas/suppression.schema.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/** The API's view of a stored rule at `nowIso`. */
export function toSuppression(row: SuppressionRow, nowIso: string): Suppression {
  return {
    id: row.id,
    category: row.category,
    source: row.source,
    target: row.target,
    serverName: row.server_name,
    note: row.note,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    active: row.expires_at === null || row.expires_at > nowIso,
    alertId: row.alert_id,
    hits: row.hits,
    lastHitAt: row.last_hit_at,
  };
}

/** Suppression use cases of the desktop API. */
export class SuppressionsService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async list(): Promise<SuppressionList> {
    const nowIso = iso(this.clock.now());
    const suppressions = (await listSuppressions(this.store)).map((r) => toSuppression(r, nowIso));
    return {
      suppressions,
      total: suppressions.length,
      active: suppressions.filter((s) => s.active).length,
      hits: suppressions.reduce((n, s) => n + s.hits, 0),
    };
  }

  /** Stores a rule; 400 naming `expiresAt` for an expiry that is not in the future. */
  async create(body: SuppressionBody): Promise<Suppression> {
    const now = this.clock.now();
    let expiresAt: string | null = null;
    if (body.durationSeconds != null) expiresAt = iso(now + body.durationSeconds * 1000);
    else if (body.expiresAt != null) {
      const at = Date.parse(body.expiresAt);
      if (!(at > now)) throw new ValidationError('Invalid body: expiresAt: must be in the future', [{ path: 'expiresAt', message: 'must be in the future' }]);
      expiresAt = iso(at);
    }
    const row = await insertSuppression(this.store, {
      category: body.category,
      source: body.source == null ? null : parseAddress(body.source).key,
      target: body.target == null ? null : parseAddress(body.target).key,
      server_name: body.serverName == null ? null : body.serverName.toLowerCase().replace(/\.$/, ''),
      note: body.note ?? null,
      created_at: iso(now),
      expires_at: expiresAt,
      alert_id: null,
      last_hit_at: null,
    });
    return toSuppression(row, iso(now));
  }

  /**
   * A rule from alert `id`: its category, its source and/or destination address (`match`, default both), an optional
   * expiry. 404 for an unknown alert; 400 naming `match` when the alert has no address to key on.
   */
  async fromAlert(id: number, body: SuppressAlertBody): Promise<Suppression> {
    const alert = await getAlert(this.store, id);
    if (!alert) throw new NotFoundError(`Alert ${id} does not exist.`, 'alert_not_found');
    const match = body.match ?? 'both';
    const source = match === 'target' ? null : (tryParseAddress(alert.src_ip)?.key ?? null);
    const target = match === 'source' || alert.dst_ip === null ? null : (tryParseAddress(alert.dst_ip)?.key ?? null);
    if (source === null && target === null)
      throw new ValidationError(`Invalid body: match: alert ${id} has no ${match === 'both' ? '' : `${match} `}address to suppress on`, [
        { path: 'match', message: `alert ${id} has no ${match === 'both' ? '' : `${match} `}address to suppress on` },
      ]);
    const now = this.clock.now();
    const row = await insertSuppression(this.store, {
      category: alert.category,
      source,
      target,
      server_name: null,
      note: body.note ?? `from alert #${id}: ${alert.title}`.slice(0, 500),
      created_at: iso(now),
      expires_at: body.durationSeconds == null ? null : iso(now + body.durationSeconds * 1000),
      alert_id: id,
      last_hit_at: null,
    });
    return toSuppression(row, iso(now));
  }

  async delete(id: number): Promise<{ id: number; deleted: true }> {
    if (!(await deleteSuppression(this.store, id))) throw new NotFoundError(`Suppression ${id} does not exist.`, 'suppression_not_found');
    return { id, deleted: true };
  }
}
