/** Alerts as the API shows them: row -> domain mapping, listing, acknowledgement and deletion (with events). */
import { NotFoundError } from '../../errors.js';
import { JsonPage } from '../../http/json-page.js';
import type { EventBus } from '../../events.js';
import { toAlertView } from '../../detect/alert-view.js';
import type { Store } from '../../store/database.js';
import { acknowledgeAlert, deleteAlert, getAlert, listAlerts, type AlertQuery } from '../../store/repos/alert.repo.js';
import type { AlertRow } from '../../store/tables/alert.table.js';
import type { Alert, AlertList } from '../schemas/alert.schema.js';
import type { Clock } from '../../clock.js';
import { changeTokenSource, type ChangeTokenSource } from '../../store/change-counter.js';

/** Maps a stored row to the API's alert shape (the same mapping the event stream uses). */
export function toAlert(row: AlertRow): Alert {
  return toAlertView(row);
}

/** The list cache's key of a query. */
function listKey(query: AlertQuery): string {
  return `${query.limit}|${query.before ?? ''}|${query.acknowledged ?? ''}|${query.severity ?? ''}`;
}

/** Distinct list queries whose serialised pages are kept. */
const LIST_CACHE_SIZE = 64;

/** Alert use cases of the desktop API. */
export class AlertsService {
  /** Serialised list pages by query, valid while the store's change token is unchanged (polling clients, the app). */
  private readonly listCache = new Map<string, { token: string; page: JsonPage }>();
  private readonly cacheToken: ChangeTokenSource;

  constructor(
    private readonly store: Store,
    private readonly events: EventBus,
    private readonly clock: Clock,
  ) {
    this.cacheToken = changeTokenSource(store, clock);
  }

  async list(query: AlertQuery): Promise<AlertList> {
    const { rows, total } = await listAlerts(this.store, query);
    const nextBefore = rows.length === query.limit ? rows[rows.length - 1].id : null;
    return { alerts: rows.map(toAlert), total, nextBefore };
  }

  /**
   * {@link list} serialised as UTF-8 JSON. Identical queries are answered from a small cache for as long as no row of
   * the store has changed (checked per request with the store's `changeTokenSource`: writes of this process at once,
   * other processes' commits within 100 ms), so repeated polling costs one tiny query and no serialisation.
   */
  async listPage(query: AlertQuery): Promise<JsonPage> {
    const key = listKey(query);
    const token = await this.cacheToken();
    const hit = this.listCache.get(key);
    if (token !== null && hit?.token === token) return hit.page;
    const page = JsonPage.of(await this.list(query));
    if (token !== null) {
      this.listCache.delete(key);
      this.listCache.set(key, { token, page });
      if (this.listCache.size > LIST_CACHE_SIZE) this.listCache.delete(this.listCache.keys().next().value as string);
    }
    return page;
  }

  /** {@link listPage}'s cached page when it is valid and the token is known without waiting, else null. */
  cachedListPage(query: AlertQuery): JsonPage | null {
    const token = this.cacheToken();
    if (typeof token !== 'string') return null;
    const hit = this.listCache.get(listKey(query));
    return hit?.token === token ? hit.page : null;
  }

  async get(id: number): Promise<Alert> {
    const row = await getAlert(this.store, id);
    if (!row) throw new NotFoundError(`Alert ${id} does not exist.`, 'alert_not_found');
    return toAlert(row);
  }

  /** Idempotent; the first acknowledgement time is kept. 404 for an unknown id. */
  async acknowledge(id: number): Promise<Alert> {
    const before = await getAlert(this.store, id);
    if (!before) throw new NotFoundError(`Alert ${id} does not exist.`, 'alert_not_found');
    if (before.acknowledged === 1) return toAlert(before);
    const row = await acknowledgeAlert(this.store, id, new Date(this.clock.now()).toISOString());
    if (!row) throw new NotFoundError(`Alert ${id} does not exist.`, 'alert_not_found');
    const alert = toAlert(row);
    this.events.emit('alert', { action: 'acknowledged', alert });
    return alert;
  }

  async delete(id: number): Promise<{ id: number; deleted: true }> {
    if (!(await deleteAlert(this.store, id))) throw new NotFoundError(`Alert ${id} does not exist.`, 'alert_not_found');
    this.events.emit('alert', { action: 'deleted', alert: { id } });
    return { id, deleted: true };
  }
}
