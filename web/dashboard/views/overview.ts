/**
 * Overview: the live chart (packets/s, bits/s, active flows from the `stats` events), the dashboard counters, the
 * top talkers, domains, applications and protocols, and the capture source with start/stop and an interface picker.
 */
import uPlot from 'uplot';
import { api } from '../api.js';
import { formatBytes, formatCount, h, replace } from '../dom.js';
import { state } from '../state.js';
import { errorText, type View } from '../view.js';

function table(caption: string, head: string[], rows: Array<Array<string | number>>, empty: string): HTMLElement {
  return h(
    'table',
    { class: 'top' },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...head.map((c) => h('th', { scope: 'col' }, c)))),
    h(
      'tbody',
      {},
      ...(rows.length === 0
        ? [h('tr', {}, h('td', { colspan: head.length, class: 'empty' }, empty))]
        : rows.map((r) => h('tr', {}, ...r.map((c) => h('td', {}, c))))),
    ),
  );
}

export function createOverview(): View {
  const counters = h('dl', { class: 'counters', 'aria-label': 'Counters' });
  const chartBox = h('div', { class: 'chart', 'aria-label': 'Live traffic chart' });
  const tops = h('div', { class: 'tops' });
  const captureText = h('p', { class: 'capture-text' });
  const captureError = h('p', { class: 'error', role: 'alert' });
  const picker = h('select', { id: 'interface', 'aria-label': 'Interface' }, h('option', { value: '' }, 'configured source'));
  const start = h('button', { type: 'button', class: 'primary' }, 'Start capture');
  const stop = h('button', { type: 'button' }, 'Stop capture');
  const newest = h('ol', { class: 'newest-alerts', 'aria-label': 'Newest alerts' });
  const el = h(
    'section',
    { id: 'view-overview', 'aria-labelledby': 'overview-h' },
    h('h2', { id: 'overview-h' }, 'Overview'),
    h(
      'div',
      { class: 'capture panel' },
      h('h3', {}, 'Capture'),
      captureText,
      h('div', { class: 'row' }, h('label', { for: 'interface' }, 'Interface '), picker, start, stop),
      captureError,
    ),
    counters,
    h('div', { class: 'panel' }, h('h3', {}, 'Live traffic'), chartBox),
    h('div', { class: 'panel' }, h('h3', {}, 'Newest alerts'), newest),
    tops,
  );

  const act = async (fn: () => Promise<unknown>): Promise<void> => {
    captureError.textContent = '';
    start.disabled = stop.disabled = true;
    try {
      await fn();
      await state.loadHealth(true);
    } catch (err) {
      captureError.textContent = errorText(err);
    } finally {
      start.disabled = stop.disabled = false;
      renderCapture();
    }
  };
  start.addEventListener('click', () => void act(() => api('POST', '/api/monitoring/start', picker.value === '' ? {} : { interface: picker.value })));
  stop.addEventListener('click', () => void act(() => api('POST', '/api/monitoring/stop')));

  let plot: uPlot | null = null;
  const makePlot = (): void => {
    const width = Math.max(300, chartBox.clientWidth || 800);
    plot = new uPlot(
      {
        width,
        height: 220,
        series: [
          {},
          { label: 'packets/s', stroke: '#2f7ed8', width: 1.5, scale: 'pps' },
          { label: 'kbit/s', stroke: '#d9534f', width: 1.5, scale: 'bps' },
          { label: 'active flows', stroke: '#5cb85c', width: 1.5, scale: 'pps' },
        ],
        axes: [{}, { scale: 'pps' }, { scale: 'bps', side: 1, grid: { show: false } }],
      },
      chartData(),
      chartBox,
    );
  };
  const chartData = (): uPlot.AlignedData => {
    const s = state.series;
    return [s.t, s.packetsPerSecond, s.bitsPerSecond.map((b) => b / 1000), s.activeFlows];
  };

  const renderCounters = (): void => {
    const s = state.stats;
    if (s === null) return;
    const items: Array<[string, string]> = [
      ['Packets', formatCount(s.packets)],
      ['Bytes', formatBytes(s.bytes)],
      ['Connections', formatCount(s.connections)],
      ['Active flows', formatCount(s.activeFlows)],
      ['Packets/s', formatCount(s.packetsPerSecond)],
      ['Bandwidth', `${formatBytes(s.bitsPerSecond / 8)}/s`],
      ['Open threats', formatCount(s.threats)],
      ['Blocked', formatCount(s.blocked)],
      ['Unacknowledged alerts', formatCount(s.unacknowledgedAlerts)],
    ];
    replace(counters, ...items.flatMap(([k, v]) => [h('div', { class: 'counter' }, h('dt', {}, k), h('dd', {}, v))]));
  };

  const renderTops = (): void => {
    const t = state.traffic;
    if (t === null) return;
    replace(
      tops,
      table(
        'Top talkers',
        ['Address', 'Bytes', 'Flows'],
        t.topTalkers.map((x) => [x.ip, formatBytes(x.bytes), formatCount(x.flows)]),
        'No traffic yet',
      ),
      table(
        'Top domains',
        ['Name', 'Bytes', 'Flows'],
        t.topDomains.byBytes.map((x) => [x.name, formatBytes(x.bytes), formatCount(x.flows)]),
        'No names seen yet',
      ),
      table(
        'Top applications',
        ['Application', 'Bytes', 'Flows'],
        t.topApplications.byBytes.map((x) => [x.by === 'port' ? `${x.app} (by port)` : x.app, formatBytes(x.bytes), formatCount(x.flows)]),
        'No applications recognised yet',
      ),
      table(
        'Top programs',
        ['Program', 'Bytes', 'Flows'],
        t.topPrograms.byBytes.map((x) => [x.name ?? x.exe ?? '?', formatBytes(x.bytes), formatCount(x.flows)]),
        'No programs known (live capture on Linux only)',
      ),
      table(
        'Protocols',
        ['Protocol', 'Packets', 'Bytes'],
        Object.entries(t.protocols)
          .filter(([, v]) => v.packets > 0)
          .sort((a, b) => b[1].bytes - a[1].bytes)
          .map(([k, v]) => [k, formatCount(v.packets), formatBytes(v.bytes)]),
        'No packets yet',
      ),
    );
  };

  const renderCapture = (): void => {
    const c = state.health?.capture;
    const running = state.stats?.capture.running ?? c?.running ?? false;
    captureText.textContent = c ? `${running ? 'Running' : 'Stopped'}: ${c.description}${c.sample ? ' (sample data)' : ''}` : 'Capture state unknown';
    if (c?.error) captureError.textContent = c.error;
    start.disabled = running;
    stop.disabled = !running;
  };

  const renderInterfaces = (): void => {
    const current = picker.value;
    replace(
      picker,
      h('option', { value: '' }, 'configured source'),
      ...state.interfaces.map((i) => h('option', { value: i.name }, `${i.name}${i.description ? ` (${i.description})` : ''}${i.up ? '' : ' [down]'}`)),
    );
    picker.value = current;
  };

  const renderNewest = (): void => {
    const list = state.alerts.slice(0, 5);
    replace(
      newest,
      ...(list.length === 0
        ? [h('li', { class: 'empty' }, 'No alerts')]
        : list.map((a) => h('li', {}, h('span', { class: `sev sev-${a.severity}` }, a.severity), ' ', h('span', { class: 'alert-title' }, a.title)))),
    );
  };

  state.on('stats', () => {
    renderCounters();
    if (plot) plot.setData(chartData());
    renderCapture();
  });
  state.on('traffic', renderTops);
  state.on('health', renderCapture);
  state.on('interfaces', renderInterfaces);
  state.on('alerts', renderNewest);

  let trafficTimer = 0;
  return {
    id: 'overview',
    title: 'Overview',
    el,
    show() {
      if (plot === null) makePlot();
      renderCounters();
      renderTops();
      renderCapture();
      renderNewest();
      // Top lists are not on the stream: refreshed once a minute while this view shows (load() skips younger lists),
      // and every 15 s while they are still empty although flows have ended (a page opened just after start).
      window.clearInterval(trafficTimer);
      trafficTimer = window.setInterval(() => {
        if (el.hidden || document.hidden) return;
        const empty = (state.traffic?.topTalkers.length ?? 0) === 0 && (state.stats?.connections ?? 0) > 0;
        state.loadTraffic(empty).catch(() => undefined);
      }, 15_000);
    },
  };
}
