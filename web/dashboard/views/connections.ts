/**
 * Connections: the stored flow summaries (`GET /api/flows`), newest first, with server name, application, the
 * program that owned the local socket (live capture on Linux), bytes, duration and state, filtered by address, name,
 * application or program on the server. Refreshed when shown (at most once a
 * minute) or on request.
 */
import { api } from '../api.js';
import { formatBytes, formatDuration, formatTime, h, replace } from '../dom.js';
import type { Flow, FlowList } from '../types.js';
import { errorText, type View } from '../view.js';

const PROTOCOLS: Record<number, string> = { 1: 'icmp', 6: 'tcp', 17: 'udp', 58: 'icmpv6' };

function end(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/** The Process cell: name and pid, with the executable, user and unit or container as its tooltip; empty when unknown. */
function processCell(p: Flow['process']): HTMLElement {
  if (p === null) return h('td', {});
  const more = [p.exe, p.user && `user ${p.user}`, p.unit, p.container && `container ${p.container}`].filter(Boolean).join(' · ');
  return h('td', more ? { title: more } : {}, `${p.name ?? p.exe ?? '?'} (${p.pid})`);
}

export function createConnections(): View {
  const ip = h('input', { type: 'text', 'aria-label': 'Filter by address', placeholder: 'address' });
  const name = h('input', { type: 'text', 'aria-label': 'Filter by server name', placeholder: 'server name' });
  const app = h('input', { type: 'text', 'aria-label': 'Filter by application', placeholder: 'application' });
  const program = h('input', { type: 'text', 'aria-label': 'Filter by process name', placeholder: 'process', maxlength: '15' });
  const refresh = h('button', { type: 'button' }, 'Refresh');
  const more = h('button', { type: 'button' }, 'Load older connections');
  const error = h('p', { class: 'error', role: 'alert' });
  const rows = h('tbody');
  const el = h(
    'section',
    { id: 'view-connections', 'aria-labelledby': 'connections-h' },
    h('h2', { id: 'connections-h' }, 'Connections'),
    h('form', { class: 'row filters', onsubmit: (e: Event) => (e.preventDefault(), void load(false)) }, ip, name, app, program, refresh),
    error,
    h(
      'table',
      { class: 'list', 'aria-label': 'Connections' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Last seen', 'Client', 'Server', 'Protocol', 'Server name', 'Application', 'Process', 'Bytes', 'Duration', 'State'].map((c) =>
            h('th', { scope: 'col' }, c),
          ),
        ),
      ),
      rows,
    ),
    more,
  );
  refresh.setAttribute('type', 'submit');
  let flows: Flow[] = [];
  let nextBefore: number | null = null;
  let loadedAt = 0;

  const query = (before: number | null): string => {
    const q = new URLSearchParams({ limit: '100' });
    if (before !== null) q.set('before', String(before));
    if (ip.value.trim()) q.set('ip', ip.value.trim());
    if (name.value.trim()) q.set('name', name.value.trim());
    if (app.value.trim()) q.set('app', app.value.trim());
    if (program.value.trim()) q.set('process', program.value.trim());
    return q.toString();
  };

  async function load(older: boolean): Promise<void> {
    error.textContent = '';
    try {
      const page = await api<FlowList>('GET', `/api/flows?${query(older ? nextBefore : null)}`);
      flows = older ? [...flows, ...page.flows] : page.flows;
      nextBefore = page.nextBefore;
      loadedAt = Date.now();
    } catch (err) {
      error.textContent = errorText(err);
    }
    render();
  }

  const render = (): void => {
    replace(
      rows,
      ...(flows.length === 0
        ? [h('tr', {}, h('td', { colspan: 10, class: 'empty' }, 'No connections stored'))]
        : flows.map((f) =>
            h(
              'tr',
              {},
              h('td', {}, formatTime(f.lastSeen)),
              h('td', {}, end(f.srcIp, f.srcPort)),
              h('td', {}, end(f.dstIp, f.dstPort)),
              h('td', {}, PROTOCOLS[f.protocol] ?? String(f.protocol)),
              h('td', {}, f.serverName ?? ''),
              h('td', {}, f.app ?? ''),
              processCell(f.process),
              h('td', {}, formatBytes(f.bytes)),
              h('td', {}, formatDuration(f.durationMs)),
              h('td', {}, f.state === 'active' ? 'active' : `ended (${f.endReason})`),
            ),
          )),
    );
    more.hidden = nextBefore === null;
  };
  more.addEventListener('click', () => void load(true));

  return {
    id: 'connections',
    title: 'Connections',
    el,
    show() {
      render();
      if (Date.now() - loadedAt >= 60_000) void load(false);
    },
  };
}
