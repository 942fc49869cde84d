/**
 * Root hooks for every test run: a per-run temporary directory (removed afterwards) and shared paths.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Test fixtures (small captures with attribution in `test/fixtures/README.md`). */
export const FIXTURES = path.join(ROOT, 'test', 'fixtures');

let runDir: string | undefined;

/** A fresh directory under this run's temp dir; removed when the run ends. */
export function tempDir(prefix = 'vigil-'): string {
  runDir ??= mkdtempSync(path.join(tmpdir(), 'vigil-test-'));
  return mkdtempSync(path.join(runDir, prefix));
}

/** True when the process can create network namespaces and firewall rules (root in CI). */
export const IS_ROOT = typeof process.getuid === 'function' && process.getuid() === 0;

export const mochaHooks = {
  afterAll(): void {
    if (runDir) rmSync(runDir, { recursive: true, force: true });
  },
};
