/** SyslogSender against real local listeners (UDP, TCP with octet counting, a unix stream socket), parsed per RFC 5424. */
import dgram from 'node:dgram';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { parseSyslogTarget } from '../../../src/config/notify.js';
import { formatSyslogMessage, SyslogSender } from '../../../src/notify/syslog.js';
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

describe('parseSyslogTarget()', () => {
  it('reads udp, tcp (IPv6 too) and unix, and names VIGIL_SYSLOG when it cannot', () => {
    expect(parseSyslogTarget('udp://127.0.0.1:514')).to.deep.equal({ transport: 'udp', host: '127.0.0.1', port: 514 });
    expect(parseSyslogTarget('tcp://[::1]:6514')).to.deep.equal({ transport: 'tcp', host: '::1', port: 6514 });
    expect(parseSyslogTarget('unix:///dev/log')).to.deep.equal({ transport: 'unix', path: '/dev/log' });
    expect(() => parseSyslogTarget('http://x')).to.throw(/^VIGIL_SYSLOG: expected off, udp:\/\/host:port/);
  });
});
