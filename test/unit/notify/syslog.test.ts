/**
 * SyslogSender against real local listeners (UDP, TCP with octet counting, a unix stream socket, a unix datagram socket
 * through logger(1)), parsed per RFC 5424. Node cannot bind a unix datagram socket either, so that listener is a
 * python3 one-liner (Debian's python3-minimal).
 */
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parseSyslogTarget } from '../../../src/config/notify.js';
import { formatSyslogMessage, loggerCommand, SyslogSender } from '../../../src/notify/syslog.js';
import { tempDir } from '../../helpers/setup.js';
import { alertView } from './alert-fixture.js';

/** RFC 5424 §6: HEADER SP STRUCTURED-DATA [SP MSG], parsed field by field. */
function parse5424(line: string) {
  const m = /^<(\d{1,3})>1 (\S+) (\S+) (\S+) (\S+) (\S+) (\[(?:[^\]\\]|\\.)*\]|-)(?: (.*))?$/s.exec(line);
  expect(m, `not RFC 5424: ${line}`).to.not.equal(null);
  const [, pri, timestamp, hostname, app, procId, msgId, sd, msg] = m!;
  const sdm = /^\[(\S+) (.*)\]$/s.exec(sd)!;
  const params: Record<string, string> = {};
  for (const p of sdm[2].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) params[p[1]] = p[2].replace(/\\(["\\\]])/g, '$1');
  return { pri: Number(pri), timestamp, hostname, app, procId, msgId, sdId: sdm[1], params, msg };
}

const header = { hostname: 'desk-1', procId: 4242, now: () => Date.parse('2026-11-27T10:00:05.000Z') };

describe('formatSyslogMessage()', () => {
  it('writes the header, Vigil structured data (escaped) and a BOM-prefixed MSG', () => {
    const alert = { ...alertView(3, 'critical'), title: 'Odd "name] x\\y"' };
    const p = parse5424(formatSyslogMessage(alert, { hostname: 'desk 1', procId: 7, nowMs: header.now() }));
    expect(p).to.deep.include({
      pri: 4 * 8 + 2,
      timestamp: '2026-11-27T10:00:05.000Z',
      hostname: 'desk1',
      app: 'vigil',
      procId: '7',
      msgId: 'alert',
      sdId: 'vigil@32473',
    });
    expect(p.params).to.include({
      id: '3',
      severity: 'critical',
      category: 'port_scan',
      srcIp: '192.0.2.10',
      dstIp: '198.51.100.7',
      dstPort: '22',
      protocol: '6',
      count: '3',
    });
    expect(p.params).to.not.have.property('srcPort');
    expect(p.msg).to.equal('\ufeffOdd "name] x\\y": 192.0.2.10 -> 198.51.100.7:22 - Probed 120 ports in 10 s');
  });
});

describe('SyslogSender', () => {
  it('udp:// sends one message per datagram', async () => {
    const server = dgram.createSocket('udp4');
    await new Promise<void>((r) => server.bind(0, '127.0.0.1', r));
    const got = new Promise<string>((resolve) => server.once('message', (m) => resolve(m.toString('utf8'))));
    const sender = new SyslogSender(parseSyslogTarget(`udp://127.0.0.1:${server.address().port}`), header);
    sender.start();
    sender.send(alertView(1, 'high'));
    const p = parse5424(await got);
    expect(p.pri).to.equal(4 * 8 + 3);
    expect(p.params.id).to.equal('1');
    await sender.stop();
    server.close();
    expect(sender.status()).to.include({ sent: 1, dropped: 0, errors: 0 });
  });

  async function streamListener(
    listen: (s: net.Server) => void,
  ): Promise<{ server: net.Server; data: () => string; wait: (pred: (d: string) => boolean) => Promise<void> }> {
    let data = '';
    const server = net.createServer((sock) => sock.on('data', (d) => (data += d.toString('utf8'))));
    listen(server);
    await new Promise((r) => server.once('listening', r));
    return {
      server,
      data: () => data,
      wait: async (pred) => {
        while (!pred(data)) await new Promise((r) => setTimeout(r, 5));
      },
    };
  }

  it('tcp:// frames with octet counting (RFC 6587) and sends what waited while connecting', async () => {
    const l = await streamListener((s) => s.listen(0, '127.0.0.1'));
    const sender = new SyslogSender(parseSyslogTarget(`tcp://127.0.0.1:${(l.server.address() as net.AddressInfo).port}`), header);
    sender.start();
    sender.send(alertView(1, 'low'));
    sender.send(alertView(2, 'medium'));
    const frames = (d: string): string[] => {
      const out: string[] = [];
      let buf = Buffer.from(d, 'utf8');
      for (;;) {
        const sp = buf.indexOf(0x20);
        if (sp < 0) break;
        const len = Number(buf.subarray(0, sp).toString());
        if (buf.length < sp + 1 + len) break;
        out.push(buf.subarray(sp + 1, sp + 1 + len).toString('utf8'));
        buf = buf.subarray(sp + 1 + len);
      }
      return out;
    };
    await l.wait((d) => frames(d).length === 2);
    const parsed = frames(l.data()).map(parse5424);
    expect(parsed.map((p) => [p.pri, p.params.id])).to.deep.equal([
      [37, '1'],
      [36, '2'],
    ]);
    await sender.stop();
    l.server.close();
  });

  it('tcp:// drops and counts messages while a collector that stopped reading holds 1 MiB unsent', async () => {
    const accepted: net.Socket[] = [];
    const server = net.createServer((c) => {
      c.pause(); // accepts and never reads
      accepted.push(c);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const sender = new SyslogSender(parseSyslogTarget(`tcp://127.0.0.1:${(server.address() as net.AddressInfo).port}`), header);
    sender.start();
    for (let i = 0; i < 200 && !sender.status().connected; i++) await new Promise((r) => setTimeout(r, 5));
    const big = { ...alertView(1), description: 'x'.repeat(32 * 1024) };
    for (let i = 0; i < 1000; i++) sender.send(big); // 32 MB, more than the kernel's socket buffers
    const s = sender.status();
    expect(s.dropped).to.be.greaterThan(0);
    expect(s.sent + s.dropped).to.equal(1000);
    // What was kept is bounded: the kernel's buffers plus at most 1 MiB and one message in the process.
    expect(s.sent * big.description.length).to.be.below(32 * 1024 * 1000);
    for (const c of accepted) c.destroy();
    await sender.stop();
    server.close();
  });

  it('unix:// writes one message per line to a stream socket', async () => {
    const sock = path.join(tempDir('syslog-'), 'log.sock');
    const l = await streamListener((s) => s.listen(sock));
    const sender = new SyslogSender(parseSyslogTarget(`unix://${sock}`), header);
    sender.start();
    sender.send(alertView(5, 'critical'));
    await l.wait((d) => d.endsWith('\n'));
    const p = parse5424(l.data().slice(0, -1));
    expect(p.params).to.include({ id: '5', severity: 'critical' });
    await sender.stop();
    l.server.close();
  });
});

/** A unix datagram socket at `sockPath` (as /dev/log is under systemd), each datagram received as one line. */
async function datagramListener(sockPath: string): Promise<{ lines: string[]; wait: (n: number) => Promise<void>; close: () => void }> {
  const py = [
    'import json, socket, sys',
    's = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)',
    's.bind(sys.argv[1])',
    'print("ready", flush=True)',
    'while True:',
    '    print(json.dumps(s.recv(65536).decode("utf-8")), flush=True)',
  ].join('\n');
  const proc = spawn('/usr/bin/python3', ['-c', py, sockPath], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let out = '';
  let ready: () => void = () => undefined;
  const isReady = new Promise<void>((r) => (ready = r));
  proc.stdout.on('data', (d: Buffer) => {
    out += d.toString('utf8');
    for (let i = out.indexOf('\n'); i >= 0; i = out.indexOf('\n')) {
      const line = out.slice(0, i);
      out = out.slice(i + 1);
      if (line === 'ready') ready();
      else lines.push(JSON.parse(line) as string);
    }
  });
  await isReady;
  return {
    lines,
    wait: async (n) => {
      for (let i = 0; i < 500 && lines.length < n; i++) await new Promise((r) => setTimeout(r, 10));
    },
    close: () => proc.kill(),
  };
}

describe('SyslogSender to a unix datagram socket', () => {
  it('sends each alert through logger(1) as RFC 5424 with the same fields as over the network', async () => {
    const sock = path.join(tempDir('syslog-dgram-'), 'dev-log');
    const l = await datagramListener(sock);
    const logged: string[] = [];
    const sender = new SyslogSender(parseSyslogTarget(`unix://${sock}`), header, (m) => logged.push(m));
    try {
      sender.start();
      const odd = { ...alertView(5, 'critical'), title: 'Odd "name] x\\y"' };
      sender.send(odd);
      sender.send(alertView(6, 'medium'));
      await l.wait(2);
      expect(l.lines).to.have.length(2);
      const [a, b] = l.lines.map(parse5424);
      expect(a).to.deep.include({ pri: 4 * 8 + 2, hostname: os.hostname(), app: 'vigil', procId: '4242', msgId: 'alert', sdId: 'vigil@32473' });
      expect(a.timestamp).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}[+-]\d\d:\d\d$/);
      expect(a.params).to.include({ id: '5', severity: 'critical', category: 'port_scan', srcIp: '192.0.2.10', dstPort: '22', count: '3' });
      // The message as formatSyslogMessage writes it: BOM, then the text (escaped structured data read back whole).
      const direct = parse5424(formatSyslogMessage(odd, { hostname: 'h', procId: 4242, nowMs: header.now() }));
      expect(a.params).to.deep.equal(direct.params);
      expect(a.msg).to.equal(direct.msg);
      expect(b).to.deep.include({ pri: 4 * 8 + 4 });
      expect(b.params.id).to.equal('6');
      // A message counts as sent once its logger run has exited, which may come after the datagram arrived here.
      while (sender.status().sent < 2) await new Promise((r) => setTimeout(r, 5));
      expect(sender.status()).to.include({ sent: 2, dropped: 0, errors: 0, connected: true });
      expect(logged).to.deep.equal([`vigil: syslog unix://${sock} is a datagram socket: sending through logger(1)`]);
    } finally {
      await sender.stop();
      l.close();
    }
  });

  it('counts a message logger cannot deliver as dropped, with its error', async () => {
    const sock = path.join(tempDir('syslog-dgram-'), 'dev-log');
    const l = await datagramListener(sock);
    const runs: string[][] = [];
    const sender = new SyslogSender(parseSyslogTarget(`unix://${sock}`), header, undefined, async (c) => {
      runs.push(c.args);
      throw new Error('logger: socket /x: No such file or directory');
    });
    try {
      sender.start();
      sender.send(alertView(7, 'high'));
      for (let i = 0; i < 300 && sender.status().dropped === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(runs).to.have.length(1);
      expect(sender.status()).to.include({ sent: 0, dropped: 1, errors: 1, connected: false, lastError: 'logger: socket /x: No such file or directory' });
    } finally {
      await sender.stop();
      l.close();
    }
  });
});

describe('loggerCommand()', () => {
  it('passes every field as its own argument, the message after --', () => {
    const c = loggerCommand('/dev/log', { ...alertView(9, 'high'), srcPort: 51000, description: '' }, 77);
    expect(c.file).to.equal('logger');
    expect(c.args.slice(0, 19)).to.deep.equal([
      '--socket',
      '/dev/log',
      '--socket-errors=on',
      '--rfc5424=notq',
      '--size',
      '8192',
      '--priority',
      'auth.err',
      '--tag',
      'vigil',
      '--id=77',
      '--msgid',
      'alert',
      '--sd-id',
      'vigil@32473',
      '--sd-param',
      'id="9"',
      '--sd-param',
      'severity="high"',
    ]);
    expect(c.args.slice(-2)).to.deep.equal(['--', '\ufeffPort scan: 192.0.2.10:51000 -> 198.51.100.7:22']);
  });
});

describe('parseSyslogTarget()', () => {
  it('reads udp, tcp (IPv6 too) and unix, and names VIGIL_SYSLOG when it cannot', () => {
    expect(parseSyslogTarget('udp://127.0.0.1:514')).to.deep.equal({ transport: 'udp', host: '127.0.0.1', port: 514 });
    expect(parseSyslogTarget('tcp://[::1]:6514')).to.deep.equal({ transport: 'tcp', host: '::1', port: 6514 });
    expect(parseSyslogTarget('unix:///dev/log')).to.deep.equal({ transport: 'unix', path: '/dev/log' });
    expect(() => parseSyslogTarget('http://x')).to.throw(/^VIGIL_SYSLOG: expected off, udp:\/\/host:port/);
  });
});
