#!/usr/bin/env node
// Formats the C++ of native/ with clang-format and the repository's .clang-format.
//   node scripts/clang-format.mjs          rewrite the files in place
//   node scripts/clang-format.mjs --check  change nothing; list each difference and exit 1 if any file would change
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');

const files = readdirSync(path.join(root, 'native'), { recursive: true, encoding: 'utf8' })
  .filter((file) => /\.(h|cpp)$/.test(file))
  .map((file) => path.join('native', file))
  .sort();

const args = check ? ['--dry-run', '--Werror', ...files] : ['-i', ...files];
const result = spawnSync(process.env.CLANG_FORMAT ?? 'clang-format', args, { cwd: root, stdio: 'inherit' });
if (result.error) {
  console.error(`clang-format could not be run (${result.error.message}); install it (apt-get install clang-format) or set CLANG_FORMAT`);
  process.exit(2);
}
if (check && result.status === 0) console.log(`clang-format: ${files.length} files formatted`);
process.exit(result.status ?? 1);
