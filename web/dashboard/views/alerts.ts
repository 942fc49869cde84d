/**
 * Alerts: newest first, filtered by severity, category and acknowledgement (in the page: the list is kept current by
 * the stream, so filtering costs no request); the detail shows the evidence and the model's explanation, with
 * `Acknowledge`, `Delete` and `Suppress` (a rule from the alert, for a chosen time: later findings of its category
 * between its addresses are dropped before they are stored). Below, the suppression rules with their hits and `Delete`;
 * they are fetched when the view is shown (at most once in 5 minutes) and after each change.
 */
import { api } from '../api.js';
import { formatTime, h, replace } from '../dom.js';
import { state } from '../state.js';
import type { Alert, Suppression, SuppressionList } from '../types.js';
import { errorText, type View } from '../view.js';

/**
 * How old the shown suppression rules (their hit counts) may get before showing the view fetches them again: the rules
 * change only through this page or the API, and the page stays well inside the rate limit (docs/dashboard.md).
 */
const RULES_REFRESH_MS = 5 * 60_000;

/** Suppression durations offered, seconds (0: until the rule is deleted). */
const SUPPRESS_DURATIONS: Array<[number, string]> = [
  [3600, '1 hour'],
  [86_400, '24 hours'],
  [604_800, '7 days'],
  [0, 'until deleted'],
];

const PROTOCOLS: Record<number, string> = { 1: 'ICMP', 6: 'TCP', 17: 'UDP', 58: 'ICMPv6' };

function endpoint(ip: string | null, port: number | null): string {
  if (ip === null) return 'many';
  return port === null ? ip : ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

function value(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** The model's part of an alert's details (`details.ml`), if any. */
interface MlDetails {
  score?: number;
  modelVersion?: string;
  explanationMethod?: string;
  flowsFlagged?: number;
  explanation?: Array<{ name: string; value: number; unit?: string; benignPercentile?: number }>;
}

export function createAlerts(): View {
  const severity = h(
    'select',
    { id: 'f-severity', 'aria-label': 'Severity' },
    h('option', { value: '' }, 'any severity'),
    ...['critical', 'high', 'medium', 'low'].map((s) => h('option', { value: s }, s)),
  );
  const category = h('select', { id: 'f-category', 'aria-label': 'Category' }, h('option', { value: '' }, 'any category'));
  const acknowledged = h(
    'select',
    { id: 'f-ack', 'aria-label': 'Acknowledged' },
    h('option', { value: '' }, 'acknowledged or not'),
    h('option', { value: 'false' }, 'unacknowledged'),
    h('option', { value: 'true' }, 'acknowledged'),
  );
  const list = h('tbody');
  const more = h('button', { type: 'button' }, 'Load older alerts');
  const detail = h('div', { class: 'detail panel', 'aria-live': 'polite' });
  const rulesBody = h('tbody');
  const rulesError = h('p', { class: 'error', role: 'alert' });
  const el = h(
    'section',
    { id: 'view-alerts', 'aria-labelledby': 'alerts-h' },
    h('h2', { id: 'alerts-h' }, 'Alerts'),
    h('div', { class: 'row filters' }, severity, category, acknowledged),
    h(
      'div',
      { class: 'split' },
      h(
        'div',
        {},
        h(
          'table',
          { class: 'list', 'aria-label': 'Alerts' },
          h('thead', {}, h('tr', {}, ...['Time', 'Severity', 'Category', 'Title', 'Source', ''].map((c) => h('th', { scope: 'col' }, c)))),
          list,
        ),
        more,
      ),
      detail,
    ),
    h(
      'section',
      { class: 'panel suppressions', 'aria-labelledby': 'suppressions-h' },
      h('h3', { id: 'suppressions-h' }, 'Suppression rules'),
      h(
        'table',
        { class: 'list', 'aria-label': 'Suppression rules' },
        h(
          'thead',
          {},
          h('tr', {}, ...['Category', 'Source', 'Target', 'Server name', 'Expires', 'Hits', 'Last hit', ''].map((c) => h('th', { scope: 'col' }, c))),
        ),
        rulesBody,
      ),
      rulesError,
    ),
  );
  let selected: number | null = null;
  let rules: Suppression[] = [];
  let rulesLoadedMs = 0;

  const renderRules = (): void => {
    replace(
      rulesBody,
      ...(rules.length === 0
        ? [h('tr', {}, h('td', { colspan: 8, class: 'empty' }, 'No suppression rules'))]
        : rules.map((r) => {
            const del = h('button', { type: 'button' }, 'Delete');
            del.addEventListener('click', () => {
              del.disabled = true;
              rulesError.textContent = '';
              api('DELETE', `/api/suppressions/${r.id}`)
                .then(() => loadRules())
                .catch((err: unknown) => {
                  rulesError.textContent = errorText(err);
                  del.disabled = false;
                });
            });
            return h(
              'tr',
              { class: r.active ? '' : 'acked', 'data-suppression-id': r.id },
              h('td', {}, r.category),
              h('td', {}, r.source ?? 'any'),
              h('td', {}, r.target ?? 'any'),
              h('td', {}, r.serverName ?? 'any'),
              h('td', {}, r.expiresAt === null ? 'never' : `${r.active ? '' : 'expired '}${formatTime(r.expiresAt)}`),
              h('td', { class: 'hits' }, String(r.hits)),
              h('td', {}, formatTime(r.lastHitAt)),
              h('td', {}, del),
            );
          })),
    );
  };

  /** Fetches the rules (one request) and shows them. */
  const loadRules = (): Promise<void> =>
    api<SuppressionList>('GET', '/api/suppressions').then(
      (list) => {
        rules = list.suppressions;
        rulesLoadedMs = Date.now();
        renderRules();
      },
      (err: unknown) => {
        rulesError.textContent = errorText(err);
      },
    );

  const filtered = (): Alert[] =>
    state.alerts.filter(
      (a) =>
        (severity.value === '' || a.severity === severity.value) &&
        (category.value === '' || a.category === category.value) &&
        (acknowledged.value === '' || String(a.acknowledged) === acknowledged.value),
    );

  const renderCategories = (): void => {
    const cats = [...new Set(state.alerts.map((a) => a.category))].sort();
    const current = category.value;
    replace(category, h('option', { value: '' }, 'any category'), ...cats.map((c) => h('option', { value: c }, c)));
    category.value = cats.includes(current) ? current : '';
  };

  const renderList = (): void => {
    renderCategories();
    const rows = filtered();
    replace(
      list,
      ...(rows.length === 0
        ? [h('tr', {}, h('td', { colspan: 6, class: 'empty' }, state.alerts.length === 0 ? 'No alerts' : 'No alert matches the filters'))]
        : rows.map((a) =>
            h(
              'tr',
              { class: `${a.acknowledged ? 'acked' : ''} ${a.id === selected ? 'selected' : ''}`, 'data-alert-id': a.id },
              h('td', {}, formatTime(a.lastSeen)),
              h('td', {}, h('span', { class: `sev sev-${a.severity}` }, a.severity)),
              h('td', {}, a.category),
              h('td', { class: 'alert-title' }, a.title),
              h('td', {}, a.srcIp),
              h('td', {}, h('button', { type: 'button', class: 'link', 'aria-label': `Details of alert ${a.id}`, onclick: () => select(a.id) }, 'Details')),
            ),
          )),
    );
    more.hidden = state.alertsNextBefore === null;
    renderDetail();
  };

  const select = (id: number): void => {
    selected = id;
    renderList();
  };

  const renderDetail = (): void => {
    const a = state.alerts.find((x) => x.id === selected);
    if (a === undefined) {
      replace(detail, h('p', { class: 'empty' }, 'Choose an alert to see its evidence.'));
      return;
    }
    const error = h('p', { class: 'error', role: 'alert' });
    const ack = h('button', { type: 'button', class: 'primary', disabled: a.acknowledged }, 'Acknowledge');
    const del = h('button', { type: 'button', class: 'danger' }, 'Delete');
    const suppressFor = h(
      'select',
      { 'aria-label': 'Suppression duration' },
      ...SUPPRESS_DURATIONS.map(([sec, text]) => h('option', { value: sec, selected: sec === 86_400 }, text)),
    );
    const suppress = h('button', { type: 'button' }, 'Suppress');
    const suppressed = h('p', { class: 'note', role: 'status' });
    suppress.addEventListener('click', () => {
      suppress.disabled = true;
      error.textContent = '';
      const seconds = Number(suppressFor.value);
      api<Suppression>('POST', `/api/alerts/${a.id}/suppress`, seconds > 0 ? { durationSeconds: seconds } : {})
        .then((rule) => {
          suppressed.textContent = `Suppressed: ${rule.category} from ${rule.source ?? 'any source'} to ${rule.target ?? 'any target'} (rule ${rule.id}).`;
          suppress.disabled = false;
          return loadRules();
        })
        .catch((err: unknown) => {
          error.textContent = errorText(err);
          suppress.disabled = false;
        });
    });
    ack.addEventListener('click', () => {
      ack.disabled = true;
      api<Alert>('POST', `/api/alerts/${a.id}/acknowledge`)
        .then((updated) => state.putAlert(updated))
        .catch((err: unknown) => {
          error.textContent = errorText(err);
          ack.disabled = false;
        });
    });
    del.addEventListener('click', () => {
      del.disabled = true;
      api('DELETE', `/api/alerts/${a.id}`)
        .then(() => {
          selected = null;
          state.removeAlert(a.id);
        })
        .catch((err: unknown) => {
          error.textContent = errorText(err);
          del.disabled = false;
        });
    });
    const { ml, ...evidence } = a.details as { ml?: MlDetails } & Record<string, unknown>;
    replace(
      detail,
      h('h3', {}, a.title),
      h('p', {}, a.description),
      h(
        'dl',
        { class: 'facts' },
        ...(
          [
            ['Severity', a.severity],
            ['Category', a.category],
            ['Source', `${a.source}${a.score === null ? '' : ` (score ${a.score.toFixed(2)})`}`],
            ['From', endpoint(a.srcIp, a.srcPort)],
            ['To', endpoint(a.dstIp, a.dstPort)],
            ['Protocol', a.protocol === null ? '' : (PROTOCOLS[a.protocol] ?? String(a.protocol))],
            ['Count', String(a.count)],
            ['First seen', formatTime(a.firstSeen)],
            ['Last seen', formatTime(a.lastSeen)],
            ['Server names', a.serverNames.join(', ') || 'none known'],
            ['Programs', a.programs.map((p) => `${p.name ?? p.exe ?? '?'} (pid ${p.pid}${p.user ? `, ${p.user}` : ''})`).join(', ') || 'none known'],
            ['Acknowledged', a.acknowledged ? formatTime(a.acknowledgedAt) : 'no'],
          ] as const
        ).flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
      ),
      h('h4', {}, 'Evidence'),
      Object.keys(evidence).length === 0
        ? h('p', { class: 'empty' }, 'No rule evidence.')
        : h('dl', { class: 'facts evidence' }, ...Object.entries(evidence).flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, value(v))])),
      h('h4', {}, 'Model explanation'),
      ml === undefined
        ? h('p', { class: 'empty' }, 'The model did not flag this alert.')
        : h(
            'div',
            { class: 'ml' },
            h(
              'p',
              {},
              `Score ${ml.score ?? ''}, model ${ml.modelVersion ?? ''}${ml.explanationMethod ? `, explained by ${ml.explanationMethod}` : ''}${
                ml.flowsFlagged ? `, ${ml.flowsFlagged} flows flagged` : ''
              }`,
            ),
            h(
              'table',
              { class: 'list', 'aria-label': 'Model explanation' },
              h('thead', {}, h('tr', {}, h('th', {}, 'Feature'), h('th', {}, 'Value'), h('th', {}, 'Benign percentile'))),
              h(
                'tbody',
                {},
                ...(ml.explanation ?? []).map((e) =>
                  h(
                    'tr',
                    {},
                    h('td', {}, e.name),
                    h('td', {}, `${Number(e.value.toPrecision(6))} ${e.unit ?? ''}`),
                    h('td', {}, e.benignPercentile === undefined ? '' : `p${e.benignPercentile}`),
                  ),
                ),
              ),
            ),
          ),
      h('div', { class: 'row' }, ack, del, suppressFor, suppress),
      suppressed,
      error,
    );
  };

  for (const f of [severity, category, acknowledged]) f.addEventListener('change', renderList);
  more.addEventListener('click', () => void state.loadOlderAlerts().catch(() => undefined));
  state.on('alerts', () => {
    if (!el.hidden) renderList();
  });

  return {
    id: 'alerts',
    title: 'Alerts',
    el,
    show(arg) {
      if (arg !== undefined && /^\d{1,15}$/.test(arg)) {
        // Opened at one alert (a notification's click): show it even when it is not among the loaded pages.
        const id = Number(arg);
        selected = id;
        if (!state.alerts.some((a) => a.id === id)) {
          api<Alert>('GET', `/api/alerts/${id}`)
            .then((a) => state.putAlert(a))
            .catch(() => undefined);
        }
      }
      renderList();
      state.loadAlerts().catch(() => undefined);
      if (Date.now() - rulesLoadedMs > RULES_REFRESH_MS) void loadRules();
    },
  };
}
