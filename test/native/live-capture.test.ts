/**
 * Live capture on a real interface: two network namespaces joined by a veth pair, TCP and UDP traffic between
 * them, captured with a BPF filter by a sensor running inside the first namespace (a child process, since a
 * process cannot capture in another namespace). Needs root (CI runs as root): otherwise skipped, saying why.
 * Also: a process exits cleanly while capturing (the addon's env cleanup hook stops and joins the capture thread).
 */
import { expect } from 'chai';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { replayFile } from '../../src/native/capture.js';
import type { FlowRecord, SensorStats } from '../../src/native/types.js';
import { FIXTURES, IS_ROOT, ROOT } from '../helpers/setup.js';

const CHILD = path.join(ROOT, 'test', 'native', 'helpers', 'sensor-child.ts');
const tag = `${process.pid % 100000}`;
const NS_A = `vigil-a-${tag}`;
const NS_B = `vigil-b-${tag}`;
const VETH_A = `vga${tag}`;
const VETH_B = `vgb${tag}`;
const ADDR_A = '10.231.77.1';
const ADDR_B = '10.231.77.2';
const TCP_PORT = 5555;
const UDP_PORT = 5556;

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: 'pipe' });
}

/** Resolves with the first line of `child`'s stdout that satisfies `match`. */
function lineFrom(child: ChildProcess, match: (line: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (d: Buffer): void => {
      buf += d.toString();
      for (const line of buf.split('\n').slice(0, -1)) {
        if (match(line)) {
          child.stdout?.off('data', onData);
          resolve(line);
          return;
        }
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`child exited (${code}) before the expected output; got: ${buf}`)));
  });
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

const SERVER = `
const net = require('node:net'); const dgram = require('node:dgram');
const srv = net.createServer((s) => s.on('data', (d) => s.end(d))).listen(${TCP_PORT}, '${ADDR_B}');
const u = dgram.createSocket('udp4'); u.on('message', (m, r) => u.send(m, r.port, r.address)); u.bind(${UDP_PORT}, '${ADDR_B}');
let n = 0; const ready = () => { if (++n === 2) console.log('ready'); };
srv.on('listening', ready); u.on('listening', ready);
`;

const CLIENT = `
const net = require('node:net'); const dgram = require('node:dgram');
const s = net.connect(${TCP_PORT}, '${ADDR_B}', () => s.write('hello vigil'));
s.on('data', () => {}); s.on('end', () => s.end());
s.on('close', () => {
  const u = dgram.createSocket('udp4'); let got = 0;
  u.on('message', () => { if (++got === 3) { u.close(); console.log('done'); } });
  u.bind(0, '${ADDR_A}', () => { for (let i = 0; i < 3; i++) u.send('ping ' + i, ${UDP_PORT}, '${ADDR_B}'); });
});
`;

const UDP_CLIENT = `
const u = require('node:dgram').createSocket('udp4');
u.bind(0, '${ADDR_A}', () => u.send('ping', ${UDP_PORT}, '${ADDR_B}', () => setTimeout(() => u.close(), 50)));
`;

describe('live capture (network namespaces + veth)', function () {
  this.timeout(60000);
  let server: ChildProcess | undefined;

  before(function () {
    if (!IS_ROOT) {
      console.log('    skipped: live capture needs root (network namespaces, CAP_NET_RAW); CI runs it as root');
      this.skip();
    }
    ip('netns', 'add', NS_A);
    ip('netns', 'add', NS_B);
    ip('link', 'add', VETH_A, 'type', 'veth', 'peer', 'name', VETH_B);
    ip('link', 'set', VETH_A, 'netns', NS_A);
    ip('link', 'set', VETH_B, 'netns', NS_B);
    ip('-n', NS_A, 'addr', 'add', `${ADDR_A}/24`, 'dev', VETH_A);
    ip('-n', NS_B, 'addr', 'add', `${ADDR_B}/24`, 'dev', VETH_B);
    ip('-n', NS_A, 'link', 'set', VETH_A, 'up');
    ip('-n', NS_B, 'link', 'set', VETH_B, 'up');
  });

  after(() => {
    server?.kill();
    if (!IS_ROOT) return;
    for (const ns of [NS_A, NS_B]) {
      try {
        ip('netns', 'del', ns);
      } catch {
        // already gone
      }
    }
  });

  it('sees the TCP and UDP flows between the namespaces through a BPF filter', async () => {
    server = spawn('ip', ['netns', 'exec', NS_B, process.execPath, '-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    await lineFrom(server, (l) => l === 'ready');
    const filter = `host ${ADDR_B} and (tcp port ${TCP_PORT} or udp port ${UDP_PORT})`;
    const sensor = spawn('ip', ['netns', 'exec', NS_A, process.execPath, '--import', 'tsx', CHILD, 'live', VETH_A, filter], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    await lineFrom(sensor, (l) => l === 'ready');
    const client = spawn('ip', ['netns', 'exec', NS_A, process.execPath, '-e', CLIENT], { stdio: ['ignore', 'pipe', 'inherit'] });
    await lineFrom(client, (l) => l === 'done');
    await new Promise((r) => setTimeout(r, 300)); // let the last packets reach the capture
    const result = lineFrom(sensor, (l) => l.startsWith('{'));
    sensor.stdin?.end('stop\n');
    const { flows, stats } = JSON.parse(await result) as { flows: FlowRecord[]; stats: SensorStats };

    const tcp = flows.filter((f) => f.protocol === 6);
    const udp = flows.filter((f) => f.protocol === 17);
    expect(tcp).to.have.length(1);
    expect(udp).to.have.length(1);
    const t = tcp[0];
    expect([t.srcIp, t.dstIp, t.dstPort]).to.deep.equal([ADDR_A, ADDR_B, TCP_PORT]);
    expect(t.fwdSyn).to.equal(1);
    expect(t.bwdSyn).to.equal(1);
    expect(t.fwdFin + t.bwdFin).to.equal(2);
    expect(t.fwdPayloadBytes).to.equal('hello vigil'.length);
    expect(t.bwdPayloadBytes).to.equal('hello vigil'.length);
    expect(t.packets).to.be.at.least(8); // 3 handshake + 2 data + acks + 2 FIN
    expect(['fin', 'flush']).to.include(t.endReason);
    const u = udp[0];
    expect([u.srcIp, u.dstIp, u.dstPort, u.fwdPackets, u.bwdPackets]).to.deep.equal([ADDR_A, ADDR_B, UDP_PORT, 3, 3]);
    expect(u.fwdPayloadBytes).to.equal(3 * 'ping 0'.length);
    // the filter kept ARP and IPv6 neighbour discovery out
    expect(stats.protocols.non_ip.packets).to.equal(0);
    expect(stats.packets).to.equal(t.packets + u.packets);
    expect(stats.pcap.received).to.be.at.least(stats.packets);
    expect(stats.batchesDropped).to.equal(0);
    expect(await exitOf(sensor)).to.deep.equal({ code: 0, signal: null });
  });

  it('vigil capture --json --count prints flow lines and a summary line from a live interface', async () => {
    const cli = spawn(
      'ip',
      ['netns', 'exec', NS_A, process.execPath, 'bin/vigil.js', 'capture', '-i', VETH_A, '-f', `udp port ${UDP_PORT}`, '--json', '--count', '4'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    cli.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    const exited = exitOf(cli);
    let done = false;
    void exited.then(() => (done = true));
    // keep sending until the CLI has seen enough packets and exits (it needs a moment to start)
    while (!done) {
      const c = spawn('ip', ['netns', 'exec', NS_A, process.execPath, '-e', UDP_CLIENT], { stdio: 'ignore' });
      await exitOf(c);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await exited).to.deep.equal({ code: 0, signal: null });
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const summary = lines.at(-1)?.summary as SensorStats & { interface: string };
    expect(summary.interface).to.equal(VETH_A);
    expect(summary.packets).to.be.at.least(4);
    expect(summary.flows).to.equal(lines.length - 1);
    const flows = lines.slice(0, -1) as unknown as FlowRecord[];
    expect(flows.length).to.be.at.least(1);
    for (const f of flows) {
      expect(f.protocol).to.equal(17);
      expect(f.firstSeen).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
    }
  });
});

describe('live capture with a slow consumer', function () {
  this.timeout(60000);

  it('drops and counts batches instead of blocking when JS does not keep up', async function () {
    if (!IS_ROOT) {
      console.log('    skipped: live capture on lo needs root or CAP_NET_RAW');
      this.skip();
    }
    const { createSensor } = await import('../../src/native/capture.js');
    const port = 40000 + (process.pid % 20000);
    const sensor = createSensor();
    let delivered = 0;
    sensor.on('flows', (b) => (delivered += b.length));
    // every datagram from a new socket is a new flow; a 1 ms idle timeout ends each at once, so a batch is ready
    // every flush interval (100 ms); a queue of one batch fills while the JS thread is busy below
    await sensor.start(
      { kind: 'live', interface: 'lo', filter: `udp dst port ${port}` },
      { idleTimeoutSec: 0.001, snapshotIntervalSec: 0, statsIntervalMs: 50, _queueDepth: 1 },
    );
    const gen = spawn(
      process.execPath,
      [
        '-e',
        `const d=require('node:dgram');const t=setInterval(()=>{const s=d.createSocket('udp4');s.send('x',${port},'127.0.0.1',()=>s.close())},2);setTimeout(()=>{clearInterval(t)},4000)`,
      ],
      { stdio: 'ignore' },
    );
    // wait until the generator is really sending (its start-up may be slow on a loaded machine)
    for (let waited = 0; sensor.stats().packets < 20 && waited < 10000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    const before = sensor.stats().packets;
    expect(before, 'the generator never started sending').to.be.at.least(20);
    const busyUntil = Date.now() + 1500;
    while (Date.now() < busyUntil) {
      // the JS thread is blocked: no batch can be delivered
    }
    await exitOf(gen);
    await new Promise((r) => setTimeout(r, 300));
    const stats = await sensor.stop();
    expect(stats.batchesDropped).to.be.greaterThan(0);
    expect(stats.batchesDelivered).to.be.greaterThan(0);
    // the capture thread kept reading while JS was blocked (it did not wait for the queue)
    expect(stats.packets - before).to.be.greaterThan(50);
    expect(stats.pcap.dropped).to.equal(0);
    // flows in dropped batches never reach JS; the others do
    expect(delivered).to.be.lessThan(stats.flows);
    expect(delivered).to.be.greaterThan(0);
  });
});

describe('live capture on a quiet interface', function () {
  this.timeout(30000);
  const quiet = `vgq${tag}`;

  after(() => {
    if (!IS_ROOT) return;
    try {
      ip('link', 'del', quiet);
    } catch {
      // not created
    }
  });

  it('still emits periodic stats and stops promptly when no packet arrives (regression: libpcap kept polling)', async function () {
    if (!IS_ROOT) {
      console.log('    skipped: creating a veth pair needs root');
      this.skip();
    }
    ip('link', 'add', quiet, 'type', 'veth', 'peer', 'name', `${quiet}p`);
    execFileSync('sysctl', ['-qw', `net.ipv6.conf.${quiet}.disable_ipv6=1`, `net.ipv6.conf.${quiet}p.disable_ipv6=1`]);
    ip('link', 'set', quiet, 'up');
    ip('link', 'set', `${quiet}p`, 'up');
    const { createSensor } = await import('../../src/native/capture.js');
    const sensor = createSensor();
    let stats = 0;
    sensor.on('stats', () => stats++);
    await sensor.start({ kind: 'live', interface: quiet }, { statsIntervalMs: 50 });
    await new Promise((r) => setTimeout(r, 600));
    const final = await sensor.stop();
    expect(stats).to.be.at.least(2);
    expect(final.packets).to.equal(0);
    expect(sensor.running).to.equal(false);
  });
});

describe('live capture errors', function () {
  this.timeout(30000);

  it('rejects an unknown interface with capture_no_such_device', async () => {
    const { createSensor } = await import('../../src/native/capture.js');
    const sensor = createSensor();
    let err: (Error & { code?: string }) | undefined;
    try {
      await sensor.start({ kind: 'live', interface: 'vigil-nope0' });
    } catch (e) {
      err = e as Error & { code?: string };
    }
    expect(err?.code).to.equal('capture_no_such_device');
    expect(err?.message).to.contain('vigil-nope0').and.contain('vigil interfaces');
    expect(sensor.running).to.equal(false);
  });

  it('tells a process without CAP_NET_RAW to run as root or grant it (vigil capture, capabilities dropped)', async () => {
    // as root: drop CAP_NET_RAW/CAP_NET_ADMIN from the child's bounding set; otherwise we lack them already
    const cmd = IS_ROOT ? 'setpriv' : process.execPath;
    const args = ['bin/vigil.js', 'capture', '-i', 'lo'];
    const argv = IS_ROOT ? ['--bounding-set=-net_raw,-net_admin', '--inh-caps=-net_raw,-net_admin', process.execPath, ...args] : args;
    const child = spawn(cmd, argv, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    expect(await exitOf(child)).to.deep.equal({ code: 1, signal: null });
    expect(stderr.trim().split('\n')).to.have.length(1);
    expect(stderr).to.contain('permission denied capturing on lo').and.contain('CAP_NET_RAW').and.contain('setcap');
  });
});

describe('process exit while capturing', function () {
  this.timeout(120000); // child processes compile TypeScript on start: slow on a loaded 2-core machine

  it('exits with its own code when process.exit() is called mid-capture', async () => {
    const args = IS_ROOT ? ['exit-live', 'lo'] : ['exit-file', path.join(FIXTURES, 'pcaps', 'sv_null_loopback_smb.pcap')];
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const guard = setTimeout(() => child.kill('SIGKILL'), 100000); // a hang fails the test instead of the run
    const result = await exitOf(child);
    clearTimeout(guard);
    expect(result).to.deep.equal({ code: 3, signal: null });
  });

  it('a worker thread that is terminated while capturing leaves the process healthy', async () => {
    const worker = new Worker(
      `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(CHILD.replace('sensor-child.ts', 'worker-capture.ts'))}); })`,
      { eval: true, workerData: path.join(FIXTURES, 'pcaps', 'sv_null_loopback_smb.pcap') },
    );
    await new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
    });
    expect(await worker.terminate()).to.equal(1);
    const r = await replayFile(path.join(FIXTURES, 'pcaps', 'zeek_ssh_password_guessing.pcap'));
    expect(r.stats.packets).to.equal(431);
  });
});
