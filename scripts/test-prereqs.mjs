#!/usr/bin/env node
// Runs before `npm test` (the `pretest` script): the suite compares the capture core with tshark, drives the
// dashboard in Debian's chromium and sends desktop notifications over a private D-Bus (dbus-daemon). When either is missing: as root on Debian/Ubuntu, installs it with apt-get (as the
// native build does for libpcap-dev); otherwise stops with one message naming the packages.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const needed = [
  { pkg: 'tshark', present: () => have('tshark') },
  { pkg: 'chromium', present: () => existsSync('/usr/bin/chromium') },
  // The desktop-notification test runs a private session bus.
  { pkg: 'dbus-daemon', present: () => have('dbus-daemon') },
];

function have(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

// Suricata's EVE JSON schema, which the EVE export's tests validate against: no package installs it, so
// scripts/suricata-schema.sh takes it from the suricata source package through apt (as root).
const SCHEMA = '/usr/local/share/suricata/schema.json';
function ensureSchema() {
  if (existsSync(process.env.VIGIL_TEST_SURICATA_SCHEMA ?? SCHEMA)) return true;
  if (typeof process.getuid === 'function' && process.getuid() === 0) {
    const r = spawnSync('bash', [new URL('./suricata-schema.sh', import.meta.url).pathname], { stdio: 'inherit' });
    if (r.status === 0) return true;
  }
  process.stderr.write(`\nvigil: the tests need Suricata's EVE JSON schema at ${SCHEMA}: sudo bash scripts/suricata-schema.sh\n\n`);
  return false;
}

const missing = needed.filter((n) => !n.present()).map((n) => n.pkg);
if (missing.length === 0) process.exit(ensureSchema() ? 0 : 1);

let os = '';
try {
  os = readFileSync('/etc/os-release', 'utf8');
} catch {
  // not Linux
}
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
if (isRoot && /ID(_LIKE)?=.*(debian|ubuntu)/.test(os) && have('apt-get')) {
  process.stdout.write(`vigil: installing ${missing.join(' ')} for the tests with apt-get\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  let r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { stdio: 'inherit', env });
  if (r.status !== 0) {
    spawnSync('apt-get', ['update'], { stdio: 'inherit', env });
    r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { stdio: 'inherit', env });
  }
  if (r.status === 0) process.exit(ensureSchema() ? 0 : 1);
}
process.stderr.write(`\nvigil: the tests need ${missing.join(' and ')}: sudo apt-get install ${missing.join(' ')}\n\n`);
process.exit(1);
