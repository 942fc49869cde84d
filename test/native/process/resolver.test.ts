/**
 * The process resolver's parts without a live capture or root (native/process through the addon's test-only exports):
 * the systemd unit and container a cgroup text names, and real lookups of this test process's own TCP and UDP
 * sockets (netlink sock_diag and /proc answer any user for its own processes). Linux only, like the resolver.
 */
import { expect } from 'chai';
import dgram from 'node:dgram';
import { realpathSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { loadBinding } from '../../../src/native/load.js';

const addon = loadBinding();
const LINUX = process.platform === 'linux';

const DOCKER_ID = 'f3b2c1d0e9a8f7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2';

describe('native/process (test-only exports)', function () {
  before(function () {
    if (!LINUX) {
      console.log('    skipped: per-process attribution is Linux only');
      this.skip();
    }
  });

  it('_parseCgroup(): the deepest unit or scope, and the container id of docker, podman, containerd, cri-o and cgroupfs paths', () => {
    const parse = addon._parseCgroup!;
    const cases: Array<[string, string | null, string | null]> = [
      ['0::/system.slice/nginx.service\n', 'nginx.service', null],
      ['0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-firefox-3100.scope\n', 'app-gnome-firefox-3100.scope', null],
      ['0::/user.slice/user-1000.slice/session-2.scope\n', 'session-2.scope', null],
      [`0::/system.slice/docker-${DOCKER_ID}.scope\n`, null, DOCKER_ID],
      [`0::/machine.slice/libpod-${DOCKER_ID}.scope/container\n`, null, DOCKER_ID],
      [`0::/kubepods.slice/kubepods-burstable.slice/kubepods-pod1.slice/cri-containerd-${DOCKER_ID}.scope\n`, null, DOCKER_ID],
      [`0::/kubepods/burstable/pod0a1b/${DOCKER_ID}\n`, null, DOCKER_ID],
      [`0::/system.slice/crio-${DOCKER_ID.slice(0, 12)}.scope\n`, null, DOCKER_ID.slice(0, 12)],
      // cgroup v1: the systemd named hierarchy when there is no unified line
      ['12:cpu,cpuacct:/\n1:name=systemd:/system.slice/sshd.service\n', 'sshd.service', null],
      // the unified line wins over v1 lines
      ['1:name=systemd:/system.slice/a.service\n0::/system.slice/b.service\n', 'b.service', null],
      ['0::/\n', null, null],
      ['0::/init.scope\n', 'init.scope', null],
      ['not a cgroup file', null, null],
      ['', null, null],
      // a short or non-hex id is no container
      ['0::/system.slice/docker-abc.scope\n', 'docker-abc.scope', null],
    ];
    for (const [text, unit, container] of cases) expect(parse(text), JSON.stringify(text)).to.deep.equal({ unit, container });
  });

  it('_lookupProcess(): this process owns its TCP client socket (pid, name, executable, user), and its UDP socket', async () => {
    const server = net.createServer((s) => s.on('error', () => undefined));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const serverPort = (server.address() as net.AddressInfo).port;
    const client = net.connect(serverPort, '127.0.0.1');
    await new Promise<void>((resolve) => client.on('connect', resolve));
    const udp = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    try {
      const tcp = addon._lookupProcess!(6, '127.0.0.1', client.localPort!, '127.0.0.1', serverPort);
      expect(tcp.process).to.not.equal(null);
      const p = tcp.process!;
      expect(p.pid).to.equal(process.pid);
      expect(p.exe).to.equal(realpathSync(process.execPath));
      expect(p.uid).to.equal(process.getuid!());
      expect(p.user).to.equal(os.userInfo().username);
      expect(p.name).to.be.a('string').and.have.length.within(1, 15);

      // An unconnected UDP socket matches any remote end, as the kernel's receive path would pick it.
      const u = addon._lookupProcess!(17, '127.0.0.1', udp.address().port, '127.0.0.1', 9);
      expect(u.process?.pid).to.equal(process.pid);

      // A connection another host begins: only the responder's end is this host's, and before it is accepted the
      // listening socket is the one the kernel would pick, so the flow gets the server.
      const inbound = addon._lookupProcess!(6, '198.51.100.7', 40000, '127.0.0.1', serverPort);
      expect(inbound.process?.pid).to.equal(process.pid);
      expect(inbound.stats).to.deep.equal({ foreign: 0, noSocket: 0, noProcess: 0 });
    } finally {
      client.destroy();
      udp.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('_lookupProcess(): a flow between two other hosts is not asked about (foreign), an unused port finds no socket', () => {
    const foreign = addon._lookupProcess!(6, '198.51.100.7', 40000, '203.0.113.9', 443);
    expect(foreign).to.deep.equal({ process: null, stats: { foreign: 1, noSocket: 0, noProcess: 0 } });
    const none = addon._lookupProcess!(17, '127.0.0.1', 9, '127.0.0.1', 10);
    expect(none).to.deep.equal({ process: null, stats: { foreign: 0, noSocket: 1, noProcess: 0 } });
  });
});
