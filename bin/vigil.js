#!/usr/bin/env node
// The `vigil` command. Runs the pre-compiled bundle in dist/ (built by `npm ci`, or `npm run build:js`) while it is
// newer than every source file it was built from; otherwise runs the TypeScript sources through tsx, so an edited tree
// always runs its current code (just with a slower start). VIGIL_FROM_SOURCE=1 forces the sources.
// CommonJS (bin/package.json): see there.
'use strict';
const { readFileSync, statSync } = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const root = path.resolve(__dirname, '..');

// `vigil replay` has a single-file CommonJS bundle of its own (scripts/build-js.mjs), required rather than imported: a
// batch tool starts once per file.
const REPLAY = process.argv[2] === 'replay';
const BUNDLE = REPLAY ? 'vigil-replay.cjs' : 'vigil.mjs';

/**
 * The bundle to run, or null for the sources. dist/.stamp (scripts/build-js.mjs) lists the source files each bundle was
 * built from; the bundle is fresh while none of them is newer than the stamp (nor gone). Runs at every start, so it
 * stats only that bundle's files (replay's ~15) rather than every file under src/. Files the sources read at run time
 * (SQL, pages) are read from src/ by the bundle too, so they are never stale.
 */
function freshBundle() {
  if (process.env.VIGIL_FROM_SOURCE === '1') return null;
  try {
    const stampFile = path.join(root, 'dist', '.stamp');
    const built = statSync(stampFile).mtimeMs;
    const sources = JSON.parse(readFileSync(stampFile, 'utf8')).sources[BUNDLE];
    if (!Array.isArray(sources) || sources.length === 0) return null;
    for (const file of sources) if (statSync(`${root}${path.sep}${file}`).mtimeMs > built) return null;
    return path.join(root, 'dist', BUNDLE);
  } catch {
    return null; // no stamp, an older stamp without the lists, or a source file gone: the sources
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

/** Loads the CLI (the bundle, or the sources through tsx) and runs it; a failure here ends the process as uncaught. */
async function run() {
  let main;
  const bundle = freshBundle();
  if (bundle && REPLAY) {
    ({ main } = require(bundle));
  } else if (bundle) {
    ({ main } = await import(pathToFileURL(bundle).href));
  } else {
    const { register } = await import('tsx/esm/api');
    register();
    ({ main } = await import(pathToFileURL(path.join(root, 'src', 'cli', 'main.ts')).href));
  }
  process.exitCode = await main(process.argv.slice(2));
}
run().catch((err) => {
  process.exitCode = 1;
  throw err;
});
