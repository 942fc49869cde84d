/**
 * Threats and the firewall: each threat's row blocks (for a chosen duration) or unblocks its address; the blocked
 * list unblocks too. A refusal shows the API's problem `detail` next to the button that was pressed.
 */
import { api } from '../api.js';
import { formatTime, h, replace } from '../dom.js';
import { state } from '../state.js';
import type { Threat } from '../types.js';
import { errorText, SEVERITY_RANK, type View } from '../view.js';

/** Block durations offered, seconds (0: until unblocked). */
const DURATIONS: Array<[number, string]> = [
  [900, '15 minutes'],
  [3600, '1 hour'],
  [86_400, '24 hours'],
  [0, 'until unblocked'],
];

function durationSelect(label: string): HTMLSelectElement {
  return h('select', { 'aria-label': label }, ...DURATIONS.map(([s, text]) => h('option', { value: s, selected: s === 3600 }, text)));
}

/** Blocks `ip`; refreshes the lists; resolves with an error text or null. */
export async function block(ip: string, durationSeconds: number, reason: string): Promise<string | null> {
  try {
    await api('POST', '/api/firewall/block', { ip, reason, ...(durationSeconds > 0 ? { durationSeconds } : {}) });
  } catch (err) {
    return errorText(err);
  }
  await Promise.all([state.loadBlocked(true), state.loadThreats(true)]).catch(() => undefined);
  return null;
}

export async function unblock(ip: string): Promise<string | null> {
  try {
    await api('POST', '/api/firewall/unblock', { ip });
  } catch (err) {
    return errorText(err);
  }
  await Promise.all([state.loadBlocked(true), state.loadThreats(true)]).catch(() => undefined);
  return null;
}

/** Block/Unblock controls for one threat, with the place its refusal shows. */
export function threatActions(t: Threat): HTMLElement {
  const error = h('span', { class: 'error', role: 'alert' });
  const label = `Block duration for ${t.ip}`;
  const duration = durationSelect(label);
  const blockButton = h('button', { type: 'button', class: 'danger', 'aria-label': `Block ${t.ip}` }, 'Block');
  const unblockButton = h('button', { type: 'button', 'aria-label': `Unblock ${t.ip}` }, 'Unblock');
  blockButton.addEventListener('click', () => {
    blockButton.disabled = true;
    error.textContent = '';
    void block(t.ip, Number(duration.value), `blocked from the dashboard (${t.category})`).then((e) => {
      error.textContent = e ?? '';
      blockButton.disabled = false;
    });
  });
  unblockButton.addEventListener('click', () => {
    unblockButton.disabled = true;
    error.textContent = '';
    void unblock(t.ip).then((e) => {
      error.textContent = e ?? '';
      unblockButton.disabled = false;
    });
  });
  return h('div', { class: 'actions' }, ...(t.blocked ? [unblockButton] : [duration, blockButton]), error);
}

export function threatPlace(t: Threat): string {
  const l = t.location;
  if (l === null) return 'unknown';
  return [l.city, l.country].filter((x) => x !== null && x !== '').join(', ') || `${l.latitude.toFixed(2)}, ${l.longitude.toFixed(2)}`;
}

export function createThreats(): View {
  const threatRows = h('tbody');
  const blockedRows = h('tbody');
  const manualIp = h('input', { type: 'text', id: 'block-ip', 'aria-label': 'Address or prefix to block', placeholder: '203.0.113.7 or 198.51.100.0/24' });
  const manualDuration = durationSelect('Block duration');
  const manualBlock = h('button', { type: 'button', class: 'danger' }, 'Block');
  const manualError = h('p', { class: 'error', role: 'alert' });
  const attribution = h('p', { class: 'attribution' });
  const el = h(
    'section',
    { id: 'view-threats', 'aria-labelledby': 'threats-h' },
    h('h2', { id: 'threats-h' }, 'Threats and firewall'),
    h(
      'table',
      { class: 'list', 'aria-label': 'Threats' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Address', 'Severity', 'Category', 'Alerts', 'Location', 'Names', 'Programs', 'Last seen', 'Firewall'].map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      threatRows,
    ),
    attribution,
    h('h3', {}, 'Blocked addresses'),
    h('div', { class: 'row' }, manualIp, manualDuration, manualBlock),
    manualError,
    h(
      'table',
      { class: 'list', 'aria-label': 'Blocked addresses' },
      h('thead', {}, h('tr', {}, ...['Address', 'Reason', 'By', 'Since', 'Until', ''].map((c) => h('th', { scope: 'col' }, c)))),
      blockedRows,
    ),
  );

  manualBlock.addEventListener('click', () => {
    manualError.textContent = '';
    manualBlock.disabled = true;
    void block(manualIp.value.trim(), Number(manualDuration.value), 'blocked from the dashboard').then((e) => {
      manualError.textContent = e ?? '';
      if (e === null) manualIp.value = '';
      manualBlock.disabled = false;
    });
  });

  const renderThreats = (): void => {
    const list = [...(state.threats?.threats ?? [])].sort(
      (a, b) => (SEVERITY_RANK[b.severity] ?? 0) - (SEVERITY_RANK[a.severity] ?? 0) || b.lastSeen.localeCompare(a.lastSeen),
    );
    attribution.textContent = state.threats ? state.threats.attribution.text : '';
    replace(
      threatRows,
      ...(list.length === 0
        ? [h('tr', {}, h('td', { colspan: 9, class: 'empty' }, state.threats === null ? 'Loading...' : 'No threats'))]
        : list.map((t) =>
            h(
              'tr',
              { 'data-threat-ip': t.ip },
              h('td', {}, t.ip),
              h('td', {}, h('span', { class: `sev sev-${t.severity}` }, t.severity)),
              h('td', {}, t.category),
              h('td', {}, t.alerts),
              h('td', {}, threatPlace(t)),
              h('td', {}, t.serverNames.join(', ')),
              h('td', {}, t.programs.map((p) => p.name ?? p.exe ?? '?').join(', ')),
              h('td', {}, formatTime(t.lastSeen)),
              h('td', {}, threatActions(t)),
            ),
          )),
    );
  };

  const renderBlocked = (): void => {
    const list = state.blocked ?? [];
    replace(
      blockedRows,
      ...(list.length === 0
        ? [h('tr', {}, h('td', { colspan: 6, class: 'empty' }, state.blocked === null ? 'Loading...' : 'Nothing is blocked'))]
        : list.map((b) => {
            const error = h('span', { class: 'error', role: 'alert' });
            const button = h('button', { type: 'button', 'aria-label': `Unblock ${b.ip}` }, 'Unblock');
            button.addEventListener('click', () => {
              button.disabled = true;
              void unblock(b.ip).then((e) => {
                error.textContent = e ?? '';
                button.disabled = false;
              });
            });
            return h(
              'tr',
              { 'data-blocked-ip': b.ip },
              h('td', {}, b.ip),
              h('td', {}, b.reason ?? ''),
              h('td', {}, b.source),
              h('td', {}, formatTime(b.blockedAt)),
              h('td', {}, b.expiresAt === null ? 'until unblocked' : formatTime(b.expiresAt)),
              h('td', {}, button, error),
            );
          })),
    );
  };

  state.on('threats', renderThreats);
  state.on('blocked', renderBlocked);

  return {
    id: 'threats',
    title: 'Threats',
    el,
    show() {
      renderThreats();
      renderBlocked();
      state.loadThreats().catch(() => undefined);
      state.loadBlocked().catch(() => undefined);
    },
  };
}
