/**
 * `vigil interfaces` prints device names as the OS reports them, and Linux accepts control characters in an interface
 * name (only '/', ':' and white space are refused): a name with ESC and BEL must print as visible escapes. Runs in a
 * private network and mount namespace (`unshare -n -m`, root only) where the namespace's own loopback is renamed;
 * the host's interfaces are never touched.
 */
import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { IS_ROOT, ROOT } from '../../helpers/setup.js';

/** Any C0 control but the line feed ending each line, DEL, C1 or bidirectional control. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const NAME = 'x\u001b[2Jy\u0007'; // clear the screen, ring the bell

const canUnshare = IS_ROOT && spawnSync('unshare', ['-n', '-m', 'true']).status === 0 && spawnSync('ip', ['-V']).status === 0;

/** `vigil interfaces ARGS` in a fresh network namespace whose loopback is named NAME. */
function interfacesInNamespace(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const script = 'mount -t sysfs sysfs /sys && ip link set lo name "$VIGIL_TEST_IFNAME" && exec "$0" bin/vigil.js interfaces "$@"';
  const r = spawnSync('unshare', ['-n', '-m', 'sh', '-c', script, process.execPath, ...args], {
    cwd: ROOT,
    env: { ...process.env, VIGIL_TEST_IFNAME: NAME },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('vigil interfaces: a device name with control characters', function () {
  this.timeout(90_000);
  before(function () {
    if (!canUnshare) this.skip(); // needs root, unshare and ip
  });

  it('prints it with visible escapes and no raw control character', () => {
    const r = interfacesInNamespace();
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stdout).to.not.match(RAW);
    expect(r.stdout.split('\n')).to.include('x\\x1b[2Jy\\x07    [down,loopback]');
  });

  it('--json keeps the name exactly', () => {
    const r = interfacesInNamespace('--json');
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stdout).to.not.match(RAW);
    const names = (JSON.parse(r.stdout) as Array<{ name: string }>).map((d) => d.name);
    expect(names).to.include(NAME);
  });
});
