/**
 * The single place that loads the native addon (`build/Release/vigil.node`). Everything else imports the typed
 * wrappers in `src/native/`. Loading is lazy so that commands which never capture do not need the addon built.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Binding } from '../../binding.js';
import { ServiceUnavailableError } from '../errors.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ADDON_PATH = path.join(ROOT, 'build', 'Release', 'vigil.node');

let cached: Binding.Addon | undefined;

/**
 * Returns the addon, loading it on first use. Throws `ServiceUnavailableError` (`native_addon_missing`) with the
 * command to run when it is not built.
 */
export function loadBinding(): Binding.Addon {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  try {
    cached = require(ADDON_PATH) as Binding.Addon;
  } catch (err) {
    throw new ServiceUnavailableError(
      `the native capture addon could not be loaded from ${ADDON_PATH}: build it with \`npm run build:native\``,
      'native_addon_missing',
      { cause: err },
    );
  }
  return cached;
}
