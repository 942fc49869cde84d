/**
 * `vigil pair`: prints the desktop API URL the phone should use, the pairing token (created if needed, mode 0600) and a
 * QR code encoding both (`vigil://pair?url=...&token=...`) for the mobile app.
 */
import os from 'node:os';
import qrcode from 'qrcode-terminal';
import { loadDesktopConfig, type DesktopConfig } from '../../config/desktop.js';
import type { Env } from '../../config/env.js';
import { isLoopback } from '../../net/classify.js';
import { loadOrCreatePairingToken } from '../../desktop-api/services/pairing.service.js';
import { terminalJson, terminalText } from '../terminal-text.js';

/** The LAN address a phone can reach: the configured host, or the first non-internal IPv4 when bound to all. */
export function reachableHost(config: Pick<DesktopConfig, 'host'>): string {
  if (config.host !== '0.0.0.0' && config.host !== '::') return config.host;
  for (const addrs of Object.values(os.networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

/** What `vigil pair` shows. */
export interface PairingInfo {
  url: string;
  token: string;
  /** The QR payload. */
  link: string;
  /** A warning when the phone cannot reach the API as configured. */
  warning: string | null;
}

/** Builds the pairing information from `env` (creates the token file on first use). */
export function pairingInfo(env: Env = process.env): PairingInfo {
  const config = loadDesktopConfig(env);
  const token = loadOrCreatePairingToken(config.tokenFile);
  const host = reachableHost(config);
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
  const link = `vigil://pair?url=${encodeURIComponent(url)}&token=${encodeURIComponent(token)}`;
  const warning = isLoopback(host)
    ? 'The desktop API listens on loopback only: start Vigil with VIGIL_DESKTOP_HOST=0.0.0.0 so the phone can reach it.'
    : config.tokenPolicy === 'never'
      ? 'VIGIL_REQUIRE_TOKEN=never: any device on the network can use the API without the token.'
      : null;
  return { url, token, link, warning };
}

export async function run(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write('usage: vigil pair [--json]\n\nPrints the desktop API URL, the pairing token and a QR code for the mobile app.\n');
    return 0;
  }
  const info = pairingInfo();
  if (args.includes('--json')) {
    process.stdout.write(`${terminalJson(info)}\n`);
    return 0;
  }
  // The token file is stored text (any 32+ characters are accepted), so it prints escaped.
  process.stdout.write(`URL:   ${terminalText(info.url)}\nToken: ${terminalText(info.token)}\n\nScan with the Vigil app:\n`);
  const qr = await new Promise<string>((resolve) => qrcode.generate(info.link, { small: true }, resolve));
  process.stdout.write(`${qr}\n`);
  if (info.warning) process.stderr.write(`warning: ${info.warning}\n`);
  return 0;
}
