#!/usr/bin/env node
// `npm run bench`: runs every bench/*.bench.ts in its own process (so peak RSS and warm caches do not leak between
// suites) and prints one JSON document with each suite's figures. `npm run bench -- capture` runs matching suites;
// `npm run bench -- capture --pcap FILE` passes extra arguments through to the suites. The soak suite (30 minutes by
// default) runs only when named: `npm run bench -- soak --minutes 5`.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const filters = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--')));
const passThrough = args.filter((a) => !filters.includes(a));
/** Suites too long for a plain `npm run bench`: they run when a filter names them. */
const ON_REQUEST = ['soak.bench.ts', 'dashboard.bench.ts'];
const suites = readdirSync(path.join(root, 'bench'))
  .filter((f) => f.endsWith('.bench.ts'))
  .sort()
  .filter((f) => (filters.length === 0 ? !ON_REQUEST.includes(f) : filters.some((x) => f.includes(x))));

const results = {};
let failed = false;
for (const file of suites) {
  const name = file.replace(/\.bench\.ts$/, '');
  process.stderr.write(`bench: ${name} ...\n`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', path.join(root, 'bench', file), ...passThrough], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const lines = r.stdout.trim().split('\n').filter(Boolean);
  try {
    results[name] = JSON.parse(lines[lines.length - 1]);
  } catch {
    results[name] = { error: `suite exited with ${r.status} and printed no JSON result`, output: r.stdout.slice(-2000) };
  }
  if (r.status !== 0) failed = true;
  process.stdout.write(`${JSON.stringify({ suite: name, ...results[name] })}\n`);
}
process.exitCode = failed ? 1 : 0;
