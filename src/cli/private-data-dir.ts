/**
 * The default data directory holds what Vigil saw and who its users are, so it is private: an older install that left
 * it open to group or others is narrowed to 0700 at start (new directories are created 0700 by the stores). A
 * directory the operator named (VIGIL_DATA_DIR, VIGIL_WEB_DATA_DIR) is their choice and is left as it is.
 */
import path from 'node:path';
import { makePrivate } from '../store/private-file.js';

/** Narrows `dataDir` to 0700 when it is `defaultDir`, ours, and open to others; tells `notice` (prefixed) when it did. */
export function tightenDefaultDataDir(dataDir: string, defaultDir: string, prefix: string, notice: (message: string) => void): void {
  if (path.resolve(dataDir) !== defaultDir) return;
  const was = makePrivate(dataDir, 0o700);
  if (typeof was === 'number') notice(`${prefix}: ${dataDir} was open to other users (mode ${was.toString(8)}); it is now 0700`);
}
