#!/usr/bin/env node
// Pre-compiles the CLI for fast start-up (run by `npm ci`/`npm install`, or `npm run build:js`).
// esbuild bundles src/cli/main.ts into dist/ (ESM, code-split so each command loads only what it needs; npm packages
// stay external). Sources locate files next to themselves through `import.meta.url`; the plugin below rewrites that
// in every module to the module's original location relative to the bundle, so paths behave exactly as under tsx.
// bin/vigil.js uses the bundle only while it is newer than every file under src/; otherwise it runs the sources
// through tsx, so an edited tree never runs stale code.
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist');

/**
 * Replaces `import.meta.url` in each source module with the URL of that source file, relative to the bundle, whose own
 * URL is `bundleUrl` (an expression: `import.meta.url` in an ES module).
 */
const keepModuleUrls = (bundleUrl = 'import.meta.url') => ({
  name: 'keep-module-urls',
  setup(b) {
    b.onLoad({ filter: /\/src\/.*\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return { contents: source, loader: 'ts' };
      const rel = path.relative(outdir, args.path).split(path.sep).join('/');
      return { contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, ${bundleUrl}).href`), loader: 'ts' };
    });
  },
});

await rm(outdir, { recursive: true, force: true });
// What both bundles share: the CLI's entry, Node 20, npm packages external, source lists (metafile); ES modules unless
// a build says otherwise (the replay bundle is CommonJS).
const cli = {
  absWorkingDir: root, // the metafile's source paths are relative to the repository's root
  outdir,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  outExtension: { '.js': '.mjs' },
  sourcemap: 'linked',
  logLevel: 'warning',
  metafile: true,
};
const mainEntry = path.join(root, 'src', 'cli', 'main.ts');
const split = await build({
  ...cli,
  entryPoints: { vigil: mainEntry },
  splitting: true,
  chunkNames: '[name]-[hash]', // every output file sits in dist/, so the relative module URLs hold for all of them
  plugins: [keepModuleUrls()],
});
// `vigil replay` once more as a single CommonJS file (dist/vigil-replay.cjs): the dispatcher and the replay command
// with all they import, the other commands left out. Loading the split bundle's ~10 modules (resolve, link, evaluate,
// each through the ES module loader) took ~9 ms of a replay's start (bench/README.md, Capture), and even one ES module
// costs more than `require()`: the loader wraps every built-in it imports in an ES module facade. A batch tool pays its
// start per file. bin/vigil.js requires it for `replay`. CommonJS has no `import.meta`: the banner gives the URL.
const otherCommands = {
  name: 'other-commands-external',
  setup(b) {
    b.onResolve({ filter: /^\.\/commands\/[a-z-]+\.js$/ }, (args) => (args.path === './commands/replay.js' ? undefined : { path: args.path, external: true }));
  },
};
const replay = await build({
  ...cli,
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  banner: { js: 'const __vigilBundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  entryPoints: { 'vigil-replay': mainEntry },
  splitting: false,
  plugins: [keepModuleUrls('__vigilBundleUrl'), otherCommands],
});
// The stamp: when the bundles were built (its mtime), and the source files each was built from. bin/vigil.js runs a
// bundle only while none of its sources is newer than the stamp; a bundle's own list is what it checks (replay's ~70
// files, not the ~230 under src/: ~4 ms of every start).
const sources = (result) =>
  Object.keys(result.metafile.inputs)
    .filter((f) => f.startsWith('src/'))
    .sort();
const stamp = { builtAt: new Date().toISOString(), sources: { 'vigil.mjs': sources(split), 'vigil-replay.cjs': sources(replay) } };
await writeFile(path.join(outdir, '.stamp'), `${JSON.stringify(stamp)}\n`);
// The dashboard page, after the CLI (the rm above cleared dist/).
await (await import('./build-dashboard.mjs')).buildDashboard();
