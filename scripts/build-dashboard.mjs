#!/usr/bin/env node
// Builds the dashboard page (web/dashboard/, served by the desktop server at GET /) into dist/dashboard/: one minified
// script and one stylesheet, named by content hash (the server sends them as immutable), and manifest.json naming
// them. Everything the page uses is bundled (uPlot, d3-geo, world-atlas's map, qrcode): it fetches nothing at run
// time. Run by scripts/build-js.mjs (npm ci/install, `npm run build:js`) or on its own.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Builds the page into `outdir` (default dist/dashboard); returns the manifest. */
export async function buildDashboard(outdir = path.join(root, 'dist', 'dashboard')) {
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const result = await build({
    entryPoints: { app: path.join(root, 'web', 'dashboard', 'main.ts') },
    outdir,
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: ['chrome110', 'firefox115', 'safari16'],
    entryNames: '[name]-[hash]',
    metafile: true,
    legalComments: 'linked',
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((p) => path.basename(p));
  const manifest = { js: outputs.find((n) => n.endsWith('.js')), css: outputs.find((n) => n.endsWith('.css')) };
  if (!manifest.js || !manifest.css) throw new Error(`dashboard build wrote ${outputs.join(', ')}`);
  await writeFile(path.join(outdir, 'manifest.json'), `${JSON.stringify(manifest)}\n`);
  return manifest;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildDashboard();
