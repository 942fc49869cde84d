/**
 * The dashboard page: the HTML shell (written here, with the page key in a meta tag) and the bundle esbuild built at
 * install time (`scripts/build-dashboard.mjs` into `dist/dashboard/`: `manifest.json` names the hashed `app-*.js` and
 * `app-*.css`). The files are read once, on the first request that finds them, and served from memory; until they
 * exist the page answers 503 `dashboard_not_built`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ServiceUnavailableError } from '../../errors.js';

/** Where `npm run build:js` writes the bundle: `dist/dashboard` of this checkout. */
export const DASHBOARD_DIR = fileURLToPath(new URL('../../../dist/dashboard', import.meta.url));

/** The page's Content-Security-Policy: nothing inline, nothing from elsewhere, never framed. */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** One built file, held in memory. */
export interface PageAsset {
  body: Buffer;
  type: string;
}

interface Built {
  html: string;
  assets: Map<string, PageAsset>;
}

/** Output names the build writes into `manifest.json`. */
interface Manifest {
  js: string;
  css: string;
}

const SAFE_NAME = /^[A-Za-z0-9_-]+\.(js|css)$/;

function escapeAttr(text: string): string {
  return text.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
}

export class DashboardPage {
  private built: Built | null = null;

  /**
   * @param dir the bundle's directory (`dist/dashboard`)
   * @param pageKey the key the page sends back (see `pageKeyFor`)
   */
  constructor(
    private readonly dir: string,
    private readonly pageKey: string,
  ) {}

  private load(): Built {
    if (this.built !== null) return this.built;
    let manifest: Manifest;
    try {
      manifest = JSON.parse(readFileSync(path.join(this.dir, 'manifest.json'), 'utf8')) as Manifest;
    } catch {
      throw new ServiceUnavailableError('The dashboard is not built: run `npm run build:js` (npm ci runs it) and reload.', 'dashboard_not_built');
    }
    const assets = new Map<string, PageAsset>();
    for (const [name, type] of [
      [manifest.js, 'text/javascript; charset=utf-8'],
      [manifest.css, 'text/css; charset=utf-8'],
    ] as const) {
      if (!SAFE_NAME.test(name)) throw new TypeError(`dashboard manifest names an unexpected file: ${name}`);
      assets.set(name, { body: readFileSync(path.join(this.dir, name)), type });
    }
    const html = [
      '<!doctype html>',
      '<html lang="en">',
      '<head>',
      '<meta charset="utf-8">',
      '<meta name="viewport" content="width=device-width, initial-scale=1">',
      `<meta name="vigil-page-key" content="${escapeAttr(this.pageKey)}">`,
      '<title>Vigil</title>',
      '<link rel="icon" href="data:,">',
      `<link rel="stylesheet" href="/dashboard/${manifest.css}">`,
      `<script src="/dashboard/${manifest.js}" defer></script>`,
      '</head>',
      '<body>',
      '<noscript>The Vigil dashboard needs JavaScript.</noscript>',
      '</body>',
      '</html>',
      '',
    ].join('\n');
    this.built = { html, assets };
    return this.built;
  }

  /** The HTML shell; throws 503 `dashboard_not_built` while the bundle is missing. */
  html(): string {
    return this.load().html;
  }

  /** A bundle file by name, or undefined. */
  asset(name: string): PageAsset | undefined {
    return this.load().assets.get(name);
  }
}
