/**
 * Alerts: newest first, filtered by severity, category and acknowledgement (in the page: the list is kept current by
 * the stream, so filtering costs no request); the detail shows the evidence and the model's explanation, with
 * `Acknowledge` and `Delete`.
 */
import { api } from '../api.js';
import { formatTime, h, replace } from '../dom.js';
import { state } from '../state.js';
import type { Alert } from '../types.js';
import { errorText, type View } from '../view.js';

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
  );
  let selected: number | null = null;

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
      h('div', { class: 'row' }, ack, del),
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
    show() {
      renderList();
      state.loadAlerts().catch(() => undefined);
    },
  };
}
