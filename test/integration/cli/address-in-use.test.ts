/**
 * `vigil start` and `vigil web` on an address another process holds (a second Vigil, or any program on that port):
 * one line naming the address and the variable that moves the port, exit code 1, and no stack trace.
 */
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { FIXTURES, tempDir } from '../../helpers/setup.js';
import { runVigil as vigil } from '../../helpers/cli.js';

describe('vigil start / vigil web on an address in use', function () {
  this.timeout(90_000);
  let holder: Server;
  let port: number;

  beforeEach(async () => {
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as { port: number }).port;
  });
  afterEach(async () => {
    await new Promise<void>((resolve) => holder.close(() => resolve()));
  });

  it('vigil start: exit code 1 and one line naming the address and VIGIL_DESKTOP_PORT, no stack trace', async () => {
    const r = await vigil(['start'], {
      VIGIL_DATA_DIR: tempDir('in-use-start-'),
      VIGIL_DESKTOP_HOST: '127.0.0.1',
      VIGIL_DESKTOP_PORT: String(port),
      VIGIL_FIREWALL: 'none',
      VIGIL_CAPTURE_FILE: path.join(FIXTURES, 'pcaps', 'zeek_qinq_8021ad_http.pcap'),
      VIGIL_REPLAY_LOOP: 'false',
    });
    expect(r.code, r.stderr).to.equal(1);
    expect(r.stdout).not.to.contain('listening');
    expect(r.stderr.trim().split('\n')).to.deep.equal([
      `vigil start: 127.0.0.1:${port} is already in use (another Vigil? stop it, or set VIGIL_DESKTOP_PORT to another port)`,
    ]);
    expect(r.stderr).not.to.match(/^\s+at /m);
  });

  it('vigil web: exit code 1 and one line naming the address and VIGIL_WEB_PORT, no stack trace', async () => {
    const r = await vigil(['web'], { VIGIL_WEB_DATA_DIR: tempDir('in-use-web-'), VIGIL_WEB_HOST: '127.0.0.1', VIGIL_WEB_PORT: String(port) });
    expect(r.code, r.stderr).to.equal(1);
    expect(r.stdout).not.to.contain('listening');
    expect(r.stderr.trim().split('\n')).to.deep.equal([
      `vigil web: 127.0.0.1:${port} is already in use (another Vigil? stop it, or set VIGIL_WEB_PORT to another port)`,
    ]);
    expect(r.stderr).not.to.match(/^\s+at /m);
  });
});
