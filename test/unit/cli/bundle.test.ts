import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { FIXTURES, ROOT } from '../../helpers/setup.js';

/** Runs the CLI from the esbuild bundle in dist/ (the split one, or replay's single file) or from the TypeScript sources. */
function vigil(from: 'bundle' | 'replay-bundle' | 'source', args: string[]): string {
  const file = {
    bundle: path.join(ROOT, 'dist', 'vigil.mjs'),
    'replay-bundle': path.join(ROOT, 'dist', 'vigil-replay.cjs'),
    source: path.join(ROOT, 'src', 'cli', 'main.ts'),
  }[from];
  const entry = `const { main } = await import(${JSON.stringify(file)}); process.exitCode = await main(${JSON.stringify(args)});`;
  const nodeArgs = from === 'source' ? ['--import', 'tsx', '--input-type=module', '-e', entry] : ['--input-type=module', '-e', entry];
  return execFileSync(process.execPath, nodeArgs, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

describe('CLI bundle (scripts/build-js.mjs)', function () {
  this.timeout(120_000);

  before(() => {
    execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build-js.mjs')], { cwd: ROOT, stdio: 'inherit' });
  });

  it('replays a capture exactly like the sources do (module-relative paths such as the addon resolve the same)', () => {
    const file = path.join(FIXTURES, 'pcaps', 'zeek_vlan_collisions_same_5tuple.pcap');
    const fromBundle = vigil('bundle', ['replay', '--json', file]);
    const fromSource = vigil('source', ['replay', '--json', file]);
    const lines = fromBundle.trim().split('\n');
    expect(lines).to.have.length(4); // three flows (one per VLAN stack) + the summary
    expect(JSON.parse(lines[3]).summary.packets).to.equal(42);
    const withoutWallTime = (out: string): unknown[] =>
      out
        .trim()
        .split('\n')
        .map((line) => {
          const o = JSON.parse(line) as { summary?: { wallMs?: number } };
          if (o.summary) delete o.summary.wallMs;
          return o;
        });
    expect(withoutWallTime(fromBundle)).to.deep.equal(withoutWallTime(fromSource));
    expect(withoutWallTime(vigil('replay-bundle', ['replay', '--json', file]))).to.deep.equal(withoutWallTime(fromSource));
  });

  it('prints the command table', () => {
    const out = vigil('bundle', ['--help']);
    expect(out).to.contain('usage: vigil <command>');
  });

  /** The modules `node bin/vigil.js ARGS` loads, from Node's ES module and CommonJS debug logs. */
  function loadedModules(args = ['--help']): string {
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_DEBUG: 'esm,module' };
    delete env.VIGIL_FROM_SOURCE;
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'vigil.js'), ...args], { cwd: ROOT, env, encoding: 'utf8' });
    expect(r.status).to.equal(0);
    return r.stderr;
  }

  it('runs `vigil replay` from its single-file CommonJS bundle: no ES module chunk, no other command', () => {
    const loaded = loadedModules(['replay', '--help']);
    expect(loaded).to.contain(path.join(ROOT, 'dist', 'vigil-replay.cjs'));
    expect(loaded).to.not.match(/dist\/(vigil|chunk-[A-Z0-9]+|replay-[A-Z0-9]+)\.mjs/);
    // Another command's failure inside the replay bundle is still reported as the dispatcher reports it.
    const missing = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'vigil.js'), 'replay', path.join(ROOT, 'no-such.pcap')], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(missing.status).to.equal(1);
    expect(missing.stderr).to.match(/^vigil replay: cannot read capture file .*no-such\.pcap/);
  });

  it('bin/vigil.js runs the bundle while it is fresh, the sources once a file deep under src/ is newer', () => {
    const bundle = path.join(ROOT, 'dist', 'vigil.mjs');
    const main = path.join(ROOT, 'src', 'cli', 'main.ts');
    // Two directories down, so the walk must build nested paths right.
    const deep = path.join(ROOT, 'src', 'desktop-api', 'routes', 'alerts.routes.ts');
    const before = statSync(deep);
    const fresh = loadedModules();
    expect(fresh).to.contain(bundle).and.not.contain(main);
    try {
      const future = new Date(Date.now() + 3600_000);
      utimesSync(deep, future, future);
      const stale = loadedModules();
      expect(stale).to.contain(main).and.not.contain(bundle);
    } finally {
      utimesSync(deep, before.atime, before.mtime);
    }
    expect(loadedModules()).to.contain(bundle);
  });

  it('checks only the sources a bundle was built from: replay goes stale with its own files, not with the others', () => {
    const replayBundle = path.join(ROOT, 'dist', 'vigil-replay.cjs');
    const replaySource = path.join(ROOT, 'src', 'cli', 'commands', 'replay.ts');
    const other = path.join(ROOT, 'src', 'desktop-api', 'routes', 'alerts.routes.ts');
    const future = new Date(Date.now() + 3600_000);
    for (const [file, stale] of [
      [other, false],
      [replaySource, true],
    ] as const) {
      const before = statSync(file);
      try {
        utimesSync(file, future, future);
        const loaded = loadedModules(['replay', '--help']);
        if (stale) expect(loaded).to.contain(replaySource).and.not.contain(replayBundle);
        else expect(loaded).to.contain(replayBundle).and.not.contain(replaySource);
      } finally {
        utimesSync(file, before.atime, before.mtime);
      }
    }
  });
});
