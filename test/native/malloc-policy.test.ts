/**
 * The addon's malloc policy (native/common/malloc_policy.h): loading the addon pins glibc's mmap and trim thresholds,
 * so memory a short-lived thread frees (a capture session's, one pair per loop of a looping replay) goes back to the
 * system instead of staying in its arena. Each case loads the real addon in a fresh Node process with a controlled
 * environment, since the policy is set once per process and glibc reads its own variables at start.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

import type { Binding } from '../../binding.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ADDON = path.join(ROOT, 'build', 'Release', 'vigil.node');
const MiB = 1024 * 1024;

/** Loads the addon in a new process with exactly `env` (plus PATH); returns its policy and `_mallocChurn(bytes)`. */
function inFreshProcess(env: Record<string, string>, bytes: number): { policy: Binding.MallocPolicy; retained: number | null } {
  const script = `const a = require(${JSON.stringify(ADDON)}); process.stdout.write(JSON.stringify({ policy: a._mallocPolicy(), retained: a._mallocChurn(${bytes}) }));`;
  const out = execFileSync(process.execPath, ['-e', script], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
  return JSON.parse(out) as { policy: Binding.MallocPolicy; retained: number | null };
}

describe('malloc policy (native addon)', () => {
  it('pins the thresholds at load, so a thread freeing 8 MiB leaves under 1 MiB in the arenas', () => {
    const r = inFreshProcess({}, 8 * MiB);
    expect(r.policy).to.deep.equal({ applied: true, skipped: null, mmapThresholdBytes: 128 * 1024, trimThresholdBytes: 128 * 1024 });
    expect(r.retained).to.be.a('number');
    expect(r.retained as number).to.be.below(1 * MiB);
  });

  it("steps back when the environment tunes glibc's malloc, which then keeps what the thread freed", () => {
    // A tunable that changes nothing itself: what remains is glibc's default, dynamic thresholds.
    const r = inFreshProcess({ GLIBC_TUNABLES: 'glibc.malloc.perturb=0' }, 8 * MiB);
    expect(r.policy).to.deep.include({ applied: false, skipped: 'environment' });
    expect(r.retained as number).to.be.at.least(8 * MiB);
  });

  it('leaves MALLOC_* variables to glibc', () => {
    const r = inFreshProcess({ MALLOC_ARENA_MAX: '2' }, 1 * MiB);
    expect(r.policy.skipped).to.equal('environment');
  });

  it('trims the arenas at most once per interval, and only under its own policy', () => {
    const script = `const a = require(${JSON.stringify(ADDON)}); process.stdout.write(JSON.stringify([a._mallocTrim(), a._mallocTrim()]));`;
    const run = (env: Record<string, string>): boolean[] =>
      JSON.parse(execFileSync(process.execPath, ['-e', script], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' })) as boolean[];
    expect(run({})).to.deep.equal([true, false]);
    expect(run({ MALLOC_ARENA_MAX: '2' })).to.deep.equal([false, false]);
  });

  it('refuses a size outside 1 byte to 64 MiB', () => {
    const script = `const a = require(${JSON.stringify(ADDON)}); try { a._mallocChurn(65 * 1024 * 1024); } catch (e) { process.stdout.write(e.constructor.name); }`;
    expect(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })).to.equal('RangeError');
  });
});
