/**
 * The dashboard's entry: the shell (header with the capture state, tabs, a status banner), the views, and the one
 * event stream that keeps them current. Loading costs 9 requests: the page, its script and style, the stream, and
 * dashboard stats, traffic stats, health, alerts and interfaces; the other views fetch what they need when shown.
 */
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { announcedLimit, requestCount, setApiHooks } from './api.js';
import { h, replace } from './dom.js';
import { openEventStream } from './event-stream.js';
import { state } from './state.js';
import type { DashboardStats } from './types.js';
import type { View } from './view.js';
import { createAlerts } from './views/alerts.js';
import { createConnections } from './views/connections.js';
import { createMap } from './views/map.js';
import { createOverview } from './views/overview.js';
import { createPairing } from './views/pairing.js';
import { createThreats } from './views/threats.js';

const banner = h('div', { id: 'banner', role: 'status', 'aria-live': 'polite', hidden: true });
const sample = h('div', { id: 'sample', class: 'sample', hidden: true });
const streamState = h('span', { id: 'stream-state', class: 'stream off' }, 'connecting');
const views: View[] = [createOverview(), createAlerts(), createThreats(), createMap(), createConnections(), createPairing()];
const tabs = views.map((v) => h('button', { type: 'button', role: 'tab', id: `tab-${v.id}`, 'aria-controls': `view-${v.id}`, 'data-view': v.id }, v.title));
const main = h('main', {}, ...views.map((v) => v.el));

/** Shows the view an address names: `#alerts`, or `#/alerts/42` (a view and what to open in it). */
function showView(hash: string): void {
  const [id, arg] = hash.replace(/^\//, '').split('/', 2);
  const view = views.find((v) => v.id === id) ?? views[0];
  for (const v of views) v.el.hidden = v !== view;
  for (const t of tabs) t.setAttribute('aria-selected', String(t.dataset.view === view.id));
  const canonical = view.id === id && arg !== undefined && arg !== '' ? `#/${view.id}/${arg}` : `#${view.id}`;
  if (location.hash !== canonical) history.replaceState(null, '', canonical);
  view.show(view.id === id ? arg : undefined);
}

for (const t of tabs) t.addEventListener('click', () => showView(t.dataset.view ?? 'overview'));
window.addEventListener('hashchange', () => showView(location.hash.slice(1)));

document.body.append(h('header', {}, h('h1', {}, 'Vigil'), h('nav', { role: 'tablist', 'aria-label': 'Views' }, ...tabs), streamState), banner, sample, main);

let bannerTimer = 0;
function say(text: string | null): void {
  banner.hidden = text === null;
  banner.textContent = text ?? '';
}

/** Everything the page shows at load (and again after a rate-limit pause or a stream reset). */
function loadAll(force: boolean): void {
  const fail = (err: unknown): void => {
    if (!(err instanceof Error) || !/Too many requests|rate limit/i.test(err.message)) say(err instanceof Error ? err.message : String(err));
  };
  state.loadStats(force).catch(fail);
  state.loadTraffic(force).catch(fail);
  state.loadHealth(force).catch(fail);
  state.loadAlerts(force).catch(fail);
  state.loadInterfaces(force).catch(() => undefined);
}

setApiHooks({
  onLimited(untilMs) {
    window.clearInterval(bannerTimer);
    const tick = (): void => {
      const s = Math.max(0, Math.ceil((untilMs - Date.now()) / 1000));
      const limit = announcedLimit === null ? 'a limited number of' : String(announcedLimit);
      say(`Too many requests: Vigil's API allows ${limit} requests per time window from this address. The page pauses and carries on by itself in ${s} s.`);
    };
    tick();
    bannerTimer = window.setInterval(tick, 1000);
  },
  onResumed() {
    window.clearInterval(bannerTimer);
    say(null);
    loadAll(true);
  },
  onKeyRefused(detail) {
    say(`Vigil refused this page (${detail}). Its pairing token may have changed: reload the page.`);
  },
});

state.on('health', () => {
  const c = state.health?.capture;
  sample.hidden = !c?.sample;
  const kept = c?.sampleStore ? ' It is stored apart from your own data (sample-data.db).' : '';
  sample.textContent = c?.sample ? `Sample data: ${c.description}. Nothing here is your own traffic.${kept}` : '';
});

openEventStream({
  onEvent(name, data) {
    if (name === 'stats') state.applyStats(data as DashboardStats);
    else if (name === 'alert') state.applyAlertEvent(data as { action: string; alert: Record<string, unknown> });
    else if (name === 'firewall') {
      state.markDirty('blocked');
      state.markDirty('threats');
      if (!views[2].el.hidden) state.loadBlocked().catch(() => undefined);
    } else if (name === 'monitoring') {
      state.markDirty('health');
      state.loadHealth().catch(() => undefined);
    } else if (name === 'reset') {
      loadAll(true);
    }
  },
  onState(connected, detail) {
    state.streamConnected = connected;
    streamState.textContent = connected ? 'live' : 'reconnecting';
    streamState.className = `stream ${connected ? 'on' : 'off'}`;
    streamState.title = detail;
  },
});

loadAll(false);
showView(location.hash.slice(1) || 'overview');

/** For tests and the curious: how many requests this page made. */
Object.defineProperty(window, 'vigilRequests', { get: () => requestCount });
replace(document.querySelector('noscript') ?? document.createElement('i'));
