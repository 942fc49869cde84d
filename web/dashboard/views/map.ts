/**
 * The threat map: world-atlas's 1:110m countries (bundled, nothing fetched) drawn with d3-geo, a marker per located
 * threat sized and coloured by severity, and this machine. Its location is not known offline (its addresses are
 * private), so it is drawn in its own box with a line to each threat. Clicking a marker opens the threat's detail.
 */
import { geoNaturalEarth1, geoPath } from 'd3-geo';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import countries110m from 'world-atlas/countries-110m.json';
import { formatTime, h, replace, svg } from '../dom.js';
import { state } from '../state.js';
import type { Threat } from '../types.js';
import { SEVERITY_RANK, type View } from '../view.js';
import { threatActions, threatPlace } from './threats.js';

const WIDTH = 960;
const HEIGHT = 500;
/** Where "this machine" is drawn (bottom left, over the ocean). */
const HOME: [number, number] = [70, HEIGHT - 60];

export function createMap(): View {
  const topology = countries110m as unknown as Topology<{ countries: GeometryCollection }>;
  const land = feature(topology, topology.objects.countries);
  const projection = geoNaturalEarth1().fitSize([WIDTH, HEIGHT], land);
  const path = geoPath(projection);

  const map = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: 'world', role: 'img', 'aria-label': 'Threat map' });
  const countries = svg('g', { class: 'countries' });
  for (const f of land.features) {
    const d = path(f);
    if (d) countries.appendChild(svg('path', { d }));
  }
  const links = svg('g', { class: 'links' });
  const markers = svg('g', { class: 'markers' });
  const home = svg('g', { class: 'home', 'data-marker': 'local' });
  home.appendChild(svg('rect', { x: HOME[0] - 8, y: HOME[1] - 8, width: 16, height: 16, rx: 3 }));
  const homeLabel = svg('text', { x: HOME[0] + 14, y: HOME[1] + 5 });
  homeLabel.textContent = 'This machine';
  home.appendChild(homeLabel);
  map.append(countries, links, markers, home);

  const detail = h('div', { class: 'detail panel', 'aria-live': 'polite' });
  const note = h('p', { class: 'note' });
  const el = h(
    'section',
    { id: 'view-map', 'aria-labelledby': 'map-h' },
    h('h2', { id: 'map-h' }, 'Map'),
    h('div', { class: 'split' }, h('div', {}, map, note), detail),
  );
  let selected: string | null = null;

  const renderDetail = (): void => {
    const t = state.threats?.threats.find((x) => x.ip === selected);
    if (t === undefined) {
      replace(detail, h('p', { class: 'empty' }, 'Choose a threat on the map.'));
      return;
    }
    const alerts = state.alerts.filter((a) => a.srcIp === t.ip || a.dstIp === t.ip).slice(0, 5);
    replace(
      detail,
      h('h3', {}, `Threat ${t.ip}`),
      h(
        'dl',
        { class: 'facts' },
        ...(
          [
            ['Severity', t.severity],
            ['Category', t.category],
            ['Score', t.score === null ? '' : t.score.toFixed(2)],
            ['Alerts', String(t.alerts)],
            ['Location', threatPlace(t)],
            ['Names', t.serverNames.join(', ') || 'none known'],
            ['First seen', formatTime(t.firstSeen)],
            ['Last seen', formatTime(t.lastSeen)],
            ['Blocked', t.blocked ? 'yes' : 'no'],
          ] as const
        ).flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
      ),
      alerts.length > 0 ? h('ul', { class: 'threat-alerts' }, ...alerts.map((a) => h('li', {}, `${a.severity}: ${a.title}`))) : null,
      threatActions(t),
    );
  };

  const render = (): void => {
    const threats: Threat[] = [...(state.threats?.threats ?? [])].sort((a, b) => (SEVERITY_RANK[a.severity] ?? 0) - (SEVERITY_RANK[b.severity] ?? 0));
    replace(links);
    replace(markers);
    let unplaced = 0;
    for (const t of threats) {
      const p = t.location ? projection([t.location.longitude, t.location.latitude]) : null;
      if (p === null) {
        unplaced++;
        continue;
      }
      links.appendChild(svg('line', { x1: HOME[0], y1: HOME[1], x2: p[0], y2: p[1], class: `sev-${t.severity}` }));
      const r = 3 + 2.5 * (SEVERITY_RANK[t.severity] ?? 1);
      const marker = svg('circle', {
        cx: p[0],
        cy: p[1],
        r,
        class: `threat-marker sev-${t.severity}${t.ip === selected ? ' selected' : ''}`,
        tabindex: 0,
        role: 'button',
        'aria-label': `Threat ${t.ip}, ${t.severity}, ${threatPlace(t)}`,
        'data-ip': t.ip,
      });
      const open = (): void => {
        selected = t.ip;
        render();
      };
      marker.addEventListener('click', open);
      marker.addEventListener('keydown', (e) => {
        if ((e as KeyboardEvent).key === 'Enter' || (e as KeyboardEvent).key === ' ') open();
      });
      markers.appendChild(marker);
    }
    note.textContent =
      state.threats === null
        ? 'Loading threats...'
        : `${threats.length - unplaced} threats placed${unplaced > 0 ? `; ${unplaced} without a location (private addresses, or no geolocation data)` : ''}. ${state.threats.attribution.text}`;
    renderDetail();
  };

  state.on('threats', () => {
    if (!el.hidden) render();
  });
  state.on('alerts', () => {
    if (!el.hidden) renderDetail();
  });

  return {
    id: 'map',
    title: 'Map',
    el,
    show() {
      render();
      state.loadThreats().catch(() => undefined);
    },
  };
}
