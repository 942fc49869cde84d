/**
 * Per-process attribution on a live capture (native/process): in a network namespace, programs the test starts
 * (curl, a Node client, a Python client) make TCP and UDP connections to echo servers in a second namespace, while a
 * sensor captures on the first namespace's veth with process attribution on. Each program reports its local ports;
 * the flows from those ports must carry the program's pid and name, and none may carry another program's. The
 * measured rates are printed; at least 95% of the TCP flows and 80% of the UDP flows must be right (the issue's
 * bar). A replay carries no process. Needs root (namespaces,
 * CAP_NET_RAW), which CI has; otherwise skipped, saying why.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { replayFile } from '../../src/native/capture.js';
import type { FlowRecord, SensorStats } from '../../src/native/types.js';
import { createNetnsPair, type NetnsPair } from '../helpers/netns.js';
import { FIXTURES, IS_ROOT, ROOT } from '../helpers/setup.js';

const CHILD = path.join(ROOT, 'test', 'native', 'helpers', 'sensor-child.ts');
const ADDR_A = '10.233.41.1';
const ADDR_B = '10.233.41.2';
const PORT = 5601;
const ROUNDS = 20;
/**
 * The servers answer after this delay, the round trip of a nearby internet server. Over a bare veth a whole
 * connection lasts ~0.3 ms, less than the capture -> resolver -> kernel path needs: the socket is closed (no inode)
 * before it is looked up. Real connections live at least one round trip.
 */
const REPLY_DELAY_MS = 20;

/** Echo servers in namespace B: TCP and UDP on ADDR_B:PORT, each reply sent after REPLY_DELAY_MS. */
const SERVER = `
const net = require('node:net'); const dgram = require('node:dgram');
let up = 0; const ready = () => { if (++up === 2) console.log('ready'); };
net.createServer((s) => { s.on('data', (d) => setTimeout(() => s.end(d), ${REPLY_DELAY_MS})); s.on('error', () => {}); })
  .listen(${PORT}, '${ADDR_B}', ready);
const u = dgram.createSocket('udp4');
u.on('message', (m, r) => setTimeout(() => u.send(m, r.port, r.address, () => {}), ${REPLY_DELAY_MS}));
u.bind(${PORT}, '${ADDR_B}', ready);
`;

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

/** Runs a program in namespace `ns`; resolves with its pid and stdout once it exits. */
function run(ns: string, file: string, args: string[]): Promise<{ pid: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('ip', ['netns', 'exec', ns, file, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    // `ip netns exec` execs the program: the child's pid is the program's.
    child.on('exit', () => resolve({ pid: child.pid ?? 0, out }));
  });
}

/** Node client: ROUNDS TCP connections (echo) one after another, then ROUNDS UDP sockets (one datagram each). */
const NODE_CLIENT = `
const net = require('node:net'); const dgram = require('node:dgram');
const tcp = [], udp = [];
const one = () => new Promise((res) => { const s = net.connect(${PORT}, '${ADDR_B}', () => { tcp.push(s.localPort); s.write('hi'); });
  s.on('data', () => s.end()); s.on('close', res); s.on('error', res); });
const dg = () => new Promise((res) => { const u = dgram.createSocket('udp4');
  u.on('message', () => { u.close(); res(); }); u.bind(0, () => { udp.push(u.address().port); u.send('hi', ${PORT}, '${ADDR_B}'); });
  setTimeout(() => { try { u.close(); } catch {} res(); }, 1000); });
(async () => { for (let i = 0; i < ${ROUNDS}; i++) await one(); for (let i = 0; i < ${ROUNDS}; i++) await dg();
  console.log(JSON.stringify({ tcp, udp })); })();
`;

/** Python client: the same, with the socket module. */
const PYTHON_CLIENT = `
import json, socket
tcp, udp = [], []
for _ in range(${ROUNDS}):
    s = socket.create_connection(('${ADDR_B}', ${PORT}), timeout=2)
    tcp.append(s.getsockname()[1]); s.sendall(b'hi'); s.recv(16); s.close()
for _ in range(${ROUNDS}):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(1)
    u.sendto(b'hi', ('${ADDR_B}', ${PORT})); udp.append(u.getsockname()[1])
    try: u.recvfrom(16)
    except OSError: pass
    u.close()
print(json.dumps({'tcp': tcp, 'udp': udp}))
`;

interface Expected {
  /** The connection's local port. */
  port: number;
  pid: number;
  name: RegExp;
  proto: 6 | 17;
}

describe('process attribution (live capture in a network namespace)', function () {
  this.timeout(120000);
  let pair: NetnsPair | undefined;
  let server: ChildProcess | undefined;

  before(async function () {
    if (!IS_ROOT) {
      console.log('    skipped: live capture in a namespace needs root (CI runs it as root)');
      this.skip();
    }
    pair = await createNetnsPair('vp', { a: { v4: [ADDR_A], v6: [] }, b: { v4: [ADDR_B], v6: [] } });
    server = spawn('ip', ['netns', 'exec', pair.b, process.execPath, '-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    await lineFrom(server, (l) => l === 'ready');
  });

  after(async () => {
    server?.kill('SIGKILL');
    await pair?.destroy();
  });

  it('gives the TCP and UDP flows of curl, node and python their pid and name', async () => {
    const ns = (pair as NetnsPair).a;
    const filter = `host ${ADDR_B} and port ${PORT}`;
    const sensor = spawn('ip', ['netns', 'exec', ns, process.execPath, '--import', 'tsx', CHILD, 'live-processes', 'veth0', filter], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    await lineFrom(sensor, (l) => l === 'ready');

    const expected: Expected[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      // the echo server answers curl's request with the request itself (HTTP/0.9 to curl)
      const r = await run(ns, 'curl', ['-s', '-o', '/dev/null', '--http0.9', '-m', '2', '-w', '%{local_port}', `http://${ADDR_B}:${PORT}/`]);
      expected.push({ port: Number(r.out.trim()), pid: r.pid, name: /^curl$/, proto: 6 });
    }
    for (const [file, args, name] of [
      [process.execPath, ['-e', NODE_CLIENT], /^node$/],
      ['python3', ['-c', PYTHON_CLIENT], /^python/],
    ] as const) {
      const r = await run(ns, file, [...args]);
      const ports = JSON.parse(r.out.trim().split('\n').pop() ?? '{}') as { tcp: number[]; udp: number[] };
      expect(ports.tcp).to.have.length(ROUNDS);
      expect(ports.udp).to.have.length(ROUNDS);
      for (const port of ports.tcp) expected.push({ port, pid: r.pid, name, proto: 6 });
      for (const port of ports.udp) expected.push({ port, pid: r.pid, name, proto: 17 });
    }
    await new Promise((r) => setTimeout(r, 300)); // let the last packets reach the capture
    const result = lineFrom(sensor, (l) => l.startsWith('{'));
    sensor.stdin?.end('stop\n');
    const { flows, stats } = JSON.parse(await result) as { flows: FlowRecord[]; stats: SensorStats & { process: { requests: number; resolved: number } } };

    // The clients' flows by (protocol, local port): an ephemeral port may serve two connections one after another.
    const byPort = new Map<string, FlowRecord[]>();
    for (const f of flows) {
      if (f.srcIp !== ADDR_A) continue;
      const key = `${f.protocol}/${f.srcPort}`;
      byPort.set(key, [...(byPort.get(key) ?? []), f]);
    }
    // Two UDP exchanges that drew the same ephemeral port are one flow (one five-tuple within the idle timeout): which
    // program it belongs to is ambiguous, so such ports are left out (a collision of 40 draws is rare).
    const uses = new Map<string, number>();
    for (const w of expected) uses.set(`${w.proto}/${w.port}`, (uses.get(`${w.proto}/${w.port}`) ?? 0) + 1);
    const judged = expected.filter((w) => w.proto === 6 || uses.get(`${w.proto}/${w.port}`) === 1);
    const udpJudged = judged.filter((w) => w.proto === 17).length;
    expect(udpJudged).to.be.at.least(2 * ROUNDS - 4);
    const rate = { 6: { right: 0, total: 0, wrong: 0 }, 17: { right: 0, total: 0, wrong: 0 } };
    for (const want of judged) {
      const r = rate[want.proto];
      const group = byPort.get(`${want.proto}/${want.port}`) ?? [];
      const mine = group.findIndex((f) => f.process?.pid === want.pid);
      const k =
        mine >= 0
          ? mine
          : Math.max(
              group.findIndex((f) => f.process == null),
              0,
            );
      const f = group.splice(k, 1)[0];
      if (f === undefined) continue; // not captured: fails the totals below
      r.total++;
      if (f.process == null) continue;
      if (f.process.pid === want.pid && want.name.test(f.process.name ?? '')) r.right++;
      else r.wrong++;
      expect(f.process.uid).to.equal(0);
      expect(f.process.user).to.equal('root');
      expect(f.process.exe).to.match(/^\//);
    }
    const tcpRate = rate[6].right / rate[6].total;
    const udpRate = rate[17].right / rate[17].total;
    console.log(
      `    attribution: TCP ${rate[6].right}/${rate[6].total} (${(100 * tcpRate).toFixed(1)}%), UDP ${rate[17].right}/${rate[17].total} ` +
        `(${(100 * udpRate).toFixed(1)}%); resolver ${JSON.stringify(stats.process)}`,
    );
    expect(rate[6].total).to.equal(3 * ROUNDS); // every connection was captured: curl, node, python
    expect(rate[17].total).to.equal(udpJudged);
    expect(rate[6].wrong + rate[17].wrong, 'flows given another program').to.equal(0);
    expect(tcpRate).to.be.at.least(0.95);
    expect(udpRate).to.be.at.least(0.8);
  });

  it('vigil capture --json prints the program of each flow (VIGIL_CAPTURE_PROCESS is on by default)', async () => {
    const ns = (pair as NetnsPair).a;
    const cli = spawn(
      'ip',
      ['netns', 'exec', ns, process.execPath, 'bin/vigil.js', 'capture', '-i', 'veth0', '-f', `udp port ${PORT}`, '--json', '--count', '100'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    cli.stdout.on('data', (d: Buffer) => (out += d.toString()));
    let done = false;
    const exited = new Promise<number | null>((resolve) => cli.on('exit', (code) => ((done = true), resolve(code))));
    // Python clients, one after another, until the CLI has seen 100 packets and exits (it needs a moment to start:
    // the first run's flows may be missed, never misattributed).
    const runs: Array<{ pid: number; udp: number[] }> = [];
    while (!done) {
      const r = await run(ns, 'python3', ['-c', PYTHON_CLIENT]);
      runs.push({ pid: r.pid, udp: (JSON.parse(r.out.trim().split('\n').pop() ?? '{}') as { udp: number[] }).udp });
    }
    expect(await exited).to.equal(0);
    const flows = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as FlowRecord & { summary?: unknown })
      .filter((f) => f.summary === undefined && f.protocol === 17 && f.srcIp === ADDR_A);
    // A port two runs drew is one flow for both (one five-tuple within the idle timeout): ambiguous, left out.
    const pidOf = (port: number): number | undefined => {
      const users = runs.filter((r) => r.udp.includes(port));
      return users.length === 1 ? users[0]?.pid : undefined;
    };
    const ours = flows.filter((f) => pidOf(f.srcPort) !== undefined);
    expect(ours.length).to.be.at.least(ROUNDS); // 100 packets: at least one whole run of 20 exchanges
    const right = ours.filter((f) => f.process?.pid === pidOf(f.srcPort) && /^python/.test(f.process?.name ?? ''));
    const wrong = ours.filter((f) => f.process != null && f.process.pid !== pidOf(f.srcPort));
    console.log(`    vigil capture --json: ${right.length}/${ours.length} UDP flows of python carry its pid and name`);
    expect(wrong).to.deep.equal([]);
    expect(right.length / ours.length).to.be.at.least(0.8);
  });

  it('a replay carries no process', async () => {
    const { flows } = await replayFile(path.join(FIXTURES, 'pcaps', 'zeek_qinq_8021ad_http.pcap'), { processes: true });
    expect(flows.length).to.be.greaterThan(0);
    for (const f of flows) expect(f.process).to.equal(null);
  });
});
