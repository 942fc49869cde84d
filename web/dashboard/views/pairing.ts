/** Pairing: the QR code the mobile app scans (`vigil://pair?url=...&token=...`), drawn in the page from `/api/pairing`. */
import QRCode from 'qrcode';
import { api } from '../api.js';
import { h, replace } from '../dom.js';
import type { Pairing } from '../types.js';
import { errorText, type View } from '../view.js';

export function createPairing(): View {
  const box = h('div', { class: 'qr' });
  const facts = h('dl', { class: 'facts' });
  const error = h('p', { class: 'error', role: 'alert' });
  const el = h(
    'section',
    { id: 'view-pairing', 'aria-labelledby': 'pairing-h' },
    h('h2', { id: 'pairing-h' }, 'Pair the mobile app'),
    h('p', {}, 'Scan this code with the Vigil app. The phone must reach this address: start Vigil with VIGIL_DESKTOP_HOST=0.0.0.0 for the LAN.'),
    box,
    facts,
    error,
  );
  let loaded = false;

  const load = async (): Promise<void> => {
    try {
      const p = await api<Pairing>('GET', '/api/pairing');
      const text = await QRCode.toString(p.link, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      const node = document.importNode(doc.documentElement, true);
      node.setAttribute('role', 'img');
      node.setAttribute('aria-label', 'Pairing QR code');
      replace(box, node);
      replace(facts, h('dt', {}, 'URL'), h('dd', {}, p.url), h('dt', {}, 'Token'), h('dd', { class: 'token' }, p.token));
      loaded = true;
    } catch (err) {
      error.textContent = errorText(err);
    }
  };

  return {
    id: 'pairing',
    title: 'Pairing',
    el,
    show() {
      if (!loaded) void load();
    },
  };
}
