#!/usr/bin/env node
// The `vigil` command. Runs the pre-compiled bundle in dist/ (built by `npm ci`, or `npm run build:js`) while it is
// newer than every source file; otherwise runs the TypeScript sources through tsx, so an edited tree always runs its
// current code (just with a slower start). VIGIL_FROM_SOURCE=1 forces the sources.
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Newest modification time (ms) of any file under `dir`. Runs at every start, over every source file, so it joins
 * paths with a template string: `path.join` (which normalises each result) made this walk cost ~17 M instructions,
 * 8% of a whole `vigil replay --summary-only` of a small capture (callgrind; bench/README.md, Capture).
 */
function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = `${dir}${path.sep}${entry.name}`;
    const m = entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs;
    if (m > newest) newest = m;
  }
  return newest;
}

// `vigil replay` has a single-file CommonJS bundle of its own (scripts/build-js.mjs), required rather than imported: a
// batch tool starts once per file.
const REPLAY = process.argv[2] === 'replay';
const BUNDLE = REPLAY ? 'vigil-replay.cjs' : 'vigil.mjs';

function freshBundle() {
  if (process.env.VIGIL_FROM_SOURCE === '1') return null;
  try {
    const stamp = statSync(path.join(root, 'dist', '.stamp')).mtimeMs;
    return stamp >= newestMtime(path.join(root, 'src')) ? path.join(root, 'dist', BUNDLE) : null;
  } catch {
    return null;
  }
}

// Run as an npm script (`npm start`, `npm run start:web`, `npx vigil`), Vigil's parent is npm (the scripts `exec`, so
// a SIGINT or SIGTERM npm passes on reaches Vigil itself) or the `sh -c` npm runs a script in. If that parent dies
// without passing a signal on (npm killed outright, a shell that does not forward), Vigil would keep running orphaned,
// still holding its port. So under npm the parent going away is the stop signal: Vigil sends itself SIGTERM and shuts
// down as it does for any stop. Started any other way, an orphaned Vigil is the operator's choice (nohup, setsid) and
// keeps running. Polled, since Node has no parent-death signal; the timer is unref'd, so it never keeps a finished
// command alive.
const PARENT_POLL_MS = 500;
if (process.env.npm_lifecycle_event !== undefined) {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    process.kill(process.pid, 'SIGTERM');
  }, PARENT_POLL_MS);
  watch.unref();
}

// `vigil replay --json FILE | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

let main;
const bundle = freshBundle();
if (bundle && REPLAY) {
  ({ main } = createRequire(import.meta.url)(bundle));
} else if (bundle) {
  ({ main } = await import(pathToFileURL(bundle).href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
