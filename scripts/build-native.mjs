#!/usr/bin/env node
// Builds the native addon during `npm ci` / `npm install` (and `npm run build:native`).
// 1. Makes sure libpcap's and OpenSSL's headers exist: installs libpcap-dev / libssl-dev with apt-get when root on
//    Debian/Ubuntu, otherwise stops with one message naming the package for this OS.
// 2. Runs cmake-js (Node headers from the node-api-headers package: nothing is downloaded).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const force = process.argv.includes('--force');
const debug = process.argv.includes('--debug');

function fail(message) {
  process.stderr.write(`\nvigil: ${message}\n\n`);
  process.exit(1);
}

function have(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function osRelease() {
  try {
    return readFileSync('/etc/os-release', 'utf8');
  } catch {
    return '';
  }
}

function pcapPackageHint() {
  if (process.platform === 'darwin') return 'libpcap ships with the Xcode command line tools (xcode-select --install) or `brew install libpcap`';
  if (process.platform === 'win32') return 'install the Npcap SDK (https://npcap.com) and set PCAP_ROOT';
  const os = osRelease();
  if (/ID(_LIKE)?=.*(debian|ubuntu)/.test(os)) return 'install libpcap-dev: sudo apt-get install libpcap-dev';
  if (/ID(_LIKE)?=.*(fedora|rhel|centos)/.test(os)) return 'install libpcap-devel: sudo dnf install libpcap-devel';
  if (/ID(_LIKE)?=.*(arch)/.test(os)) return 'install libpcap: sudo pacman -S libpcap';
  if (/ID(_LIKE)?=.*(alpine)/.test(os)) return 'install libpcap-dev: apk add libpcap-dev';
  return 'install the libpcap development package for your OS (libpcap-dev / libpcap-devel)';
}

const pcapHeaders = ['/usr/include/pcap.h', '/usr/include/pcap/pcap.h', '/usr/local/include/pcap.h', '/opt/homebrew/include/pcap.h'];
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const isDebian = /ID(_LIKE)?=.*(debian|ubuntu)/.test(osRelease());

function aptInstall(packages) {
  process.stdout.write(`vigil: installing ${packages.join(' ')} with apt-get\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  let r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { stdio: 'inherit', env });
  if (r.status !== 0) {
    spawnSync('apt-get', ['update'], { stdio: 'inherit', env });
    r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { stdio: 'inherit', env });
  }
  return r.status === 0;
}

if (!pcapHeaders.some((p) => existsSync(p))) {
  if (isRoot && isDebian && have('apt-get')) {
    if (!aptInstall(['libpcap-dev'])) fail(`pcap.h is missing and apt-get could not install it: ${pcapPackageHint()}`);
  } else {
    fail(`pcap.h (libpcap development headers) is missing: ${pcapPackageHint()}`);
  }
}
// OpenSSL's libcrypto (fingerprint hashes, Community ID, QUIC Initial decryption in native/app).
const opensslHeaders = ['/usr/include/openssl/evp.h', '/usr/local/include/openssl/evp.h', '/opt/homebrew/opt/openssl/include/openssl/evp.h'];
if (!opensslHeaders.some((p) => existsSync(p))) {
  const hint =
    process.platform === 'darwin'
      ? 'brew install openssl'
      : /ID(_LIKE)?=.*(fedora|rhel|centos)/.test(osRelease())
        ? 'sudo dnf install openssl-devel'
        : 'sudo apt-get install libssl-dev';
  if (isRoot && isDebian && have('apt-get')) {
    if (!aptInstall(['libssl-dev'])) fail(`openssl/evp.h is missing and apt-get could not install libssl-dev: ${hint}`);
  } else {
    fail(`openssl/evp.h (OpenSSL development headers) is missing: ${hint}`);
  }
}
const missingTools = ['cmake', 'make', 'g++'].filter((t) => !have(t));
if (missingTools.length > 0) {
  const pkgs = missingTools.map((t) => (t === 'g++' ? 'g++' : t));
  if (isRoot && isDebian && have('apt-get')) {
    if (!aptInstall(pkgs)) fail(`could not install ${pkgs.join(', ')} with apt-get`);
  } else {
    fail(`the native build needs ${missingTools.join(', ')}: install ${pkgs.join(' ')} (Debian/Ubuntu: sudo apt-get install cmake make g++)`);
  }
}

const addon = path.join(root, 'build', 'Release', 'vigil.node');
if (!force && process.env.npm_command !== 'ci' && existsSync(addon) && process.env.VIGIL_SKIP_REBUILD === '1') {
  process.exit(0);
}

const cmakeJs = path.join(root, 'node_modules', 'cmake-js', 'bin', 'cmake-js');
const args = [cmakeJs, 'compile', '--log-level', 'warn', '-d', root];
if (debug) args.push('--debug');
const jobs = String(Math.max(1, (await import('node:os')).availableParallelism()));
try {
  execFileSync(process.execPath, args, { stdio: 'inherit', cwd: root, env: { ...process.env, CMAKE_BUILD_PARALLEL_LEVEL: jobs } });
} catch {
  fail('the native addon failed to build (see the compiler output above)');
}
