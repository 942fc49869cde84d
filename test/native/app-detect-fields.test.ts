/**
 * The application-layer fields detection reads beyond the first messages, end to end through the real addon: TLS
 * heartbeats (`tls.heartbeats`, the record walker after the hello) and the first HTTP response's Content-Type and body
 * magic (`http.contentType`, `http.bodyMagic`). The captures are hand-built here (Ethernet, IPv4, TCP with real
 * sequence numbers) in the shapes of the evaluation's zeek_tls_heartbleed.pcap and ndpi_exe_download_as_png.pcap,
 * which are not in the repository; their segment sizes and header bytes are the captures', the bodies are synthetic.
 */
import { expect } from 'chai';
import path from 'node:path';
import { replayFile } from '../../src/native/capture.js';
import type { FlowRecord } from '../../src/native/types.js';
import { tcpSessions, type Segment } from '../helpers/pcap-file.js';
import { tempDir } from '../helpers/setup.js';

const CLIENT = [173, 203, 79, 216];
const SERVER = [162, 219, 2, 166];

/** A classic little-endian pcap (Ethernet) of one TCP connection: handshake, the segments in order, FINs. */
function tcpCapture(file: string, serverPort: number, segments: Segment[]): void {
  const eth = Buffer.from('005056896e44 001517368969 0800'.replace(/ /g, ''), 'hex');
  tcpSessions(file, CLIENT, SERVER, [{ port: serverPort, segments }], { startUs: 1_400_000_000_000_000, eth, ttl: 64, clientPort: 46592, serverIsn: 5000 });
}

function record(type: number, body: Buffer): Buffer {
  const h = Buffer.from([type, 3, 3, 0, 0]);
  h.writeUInt16BE(body.length, 3);
  return Buffer.concat([h, body]);
}

/** A ClientHello handshake message with an SNI (enough for the parser; no extensions beyond server_name). */
function clientHello(sni: string): Buffer {
  const name = Buffer.from(sni);
  const sniExt = Buffer.alloc(9 + name.length);
  sniExt.writeUInt16BE(0, 0); // server_name
  sniExt.writeUInt16BE(5 + name.length, 2);
  sniExt.writeUInt16BE(3 + name.length, 4);
  sniExt[6] = 0;
  sniExt.writeUInt16BE(name.length, 7);
  name.copy(sniExt, 9);
  const body = Buffer.concat([
    Buffer.from([3, 3]),
    Buffer.alloc(32, 7), // random
    Buffer.from([0]), // session id
    Buffer.from([0, 2, 0xc0, 0x14]), // one cipher suite
    Buffer.from([1, 0]), // compression: null
    Buffer.from([(sniExt.length >> 8) & 0xff, sniExt.length & 0xff]),
    sniExt,
  ]);
  const h = Buffer.from([1, 0, 0, 0]);
  h.writeUIntBE(body.length, 1, 3);
  return Buffer.concat([h, body]);
}

function serverHello(): Buffer {
  const body = Buffer.concat([Buffer.from([3, 3]), Buffer.alloc(32, 9), Buffer.from([0]), Buffer.from([0xc0, 0x14, 0]), Buffer.from([0, 0])]);
  const h = Buffer.from([2, 0, 0, 0]);
  h.writeUIntBE(body.length, 1, 3);
  return Buffer.concat([h, body]);
}

function cut(bytes: Buffer, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (const n of sizes) {
    out.push(bytes.subarray(at, at + n));
    at += n;
  }
  if (at < bytes.length) out.push(bytes.subarray(at));
  return out;
}

async function onlyFlow(file: string): Promise<FlowRecord> {
  const { flows } = await replayFile(file);
  const tcp = flows.filter((f) => f.protocol === 6);
  expect(tcp).to.have.length(1);
  return tcp[0] as FlowRecord;
}

describe('native: heartbeats and response types reach the flow record', function () {
  this.timeout(30_000);
  const dir = tempDir('vigil-app-detect-');

  it('counts a Heartbleed request per side: overlong and early, unanswered (zeek_tls_heartbleed.pcap shape)', async () => {
    // The client's heartbeat record 18 03 03 3f f0, message 01 3f ed (payload_length 16365 in a 16368-byte record),
    // in that capture's six segments.
    const hbBody = Buffer.alloc(16368, 0x41);
    hbBody[0] = 1;
    hbBody.writeUInt16BE(16365, 1);
    const heartbeat = record(24, hbBody);
    const file = path.join(dir, 'heartbleed.pcap');
    tcpCapture(file, 443, [
      { fromClient: true, payload: record(22, clientHello('heartbleed.example')) },
      { fromClient: false, payload: Buffer.concat([record(22, serverHello()), record(22, Buffer.from('0e000000', 'hex'))]) },
      ...cut(heartbeat, [4344, 1448, 1448, 4344, 1448, 3341]).map((payload) => ({ fromClient: true, payload })),
    ]);
    const f = await onlyFlow(file);
    expect(f.tls).to.include({ sni: 'heartbleed.example', version: 'TLS 1.2', cipher: 'c014' });
    expect(f.tls!.heartbeats).to.deep.equal({
      client: { records: 1, maxLen: 16368, early: true, overlong: true, short: false },
      server: { records: 0, maxLen: 0, early: false, overlong: false, short: false },
    });
  });

  it('sees encrypted heartbeats after application data, and a response larger than its request', async () => {
    const ccs = record(20, Buffer.from([1]));
    const data = record(23, Buffer.alloc(300, 3));
    const file = path.join(dir, 'heartbeat-encrypted.pcap');
    tcpCapture(file, 8443, [
      { fromClient: true, payload: record(22, clientHello('hb.example')) },
      { fromClient: false, payload: Buffer.concat([record(22, serverHello()), ccs]) },
      { fromClient: true, payload: Buffer.concat([ccs, data]) },
      // 20 more data records each way: the walker reads past the hello's 12-packet parse budget.
      ...Array.from({ length: 20 }, (_, i) => ({ fromClient: i % 2 === 0, payload: data })),
      { fromClient: true, payload: record(24, Buffer.alloc(67, 5)) },
      ...cut(
        Buffer.concat([record(24, Buffer.alloc(16384, 6)), record(24, Buffer.alloc(16384, 6))]),
        [1448, 1448, 1448, 1448, 1448, 1448, 1448, 1448, 1448, 1448, 1448, 1448, 1448, 1448, 1448, 1448, 1448, 1448, 1448, 1448, 1448, 1448],
      ).map((payload) => ({ fromClient: false, payload })),
    ]);
    const f = await onlyFlow(file);
    expect(f.tls!.heartbeats).to.deep.equal({
      client: { records: 1, maxLen: 67, early: false, overlong: false, short: false },
      server: { records: 2, maxLen: 16384, early: false, overlong: false, short: false },
    });
  });

  it('leaves heartbeats null on a TLS connection without them, and with the application layer off', async () => {
    const file = path.join(dir, 'tls-plain.pcap');
    tcpCapture(file, 443, [
      { fromClient: true, payload: record(22, clientHello('plain.example')) },
      { fromClient: false, payload: record(22, serverHello()) },
      { fromClient: true, payload: record(23, Buffer.alloc(100)) },
    ]);
    const f = await onlyFlow(file);
    expect(f.tls).to.include({ sni: 'plain.example', heartbeats: null });
    const off = (await replayFile(path.join(dir, 'heartbleed.pcap'), { appLayer: false })).flows.find((x) => x.protocol === 6);
    expect(off!.tls).to.equal(null);
  });

  it('reads the response Content-Type and a PE body split across segments (ndpi_exe_download_as_png.pcap shape)', async () => {
    const head =
      'HTTP/1.1 200 OK\r\nServer: nginx/1.10.3\r\nDate: Wed, 25 Sep 2019 18:08:24 GMT\r\nContent-Type: image/png\r\n' +
      'Content-Length: 1024\r\nConnection: keep-alive\r\n\r\n';
    const pe = Buffer.alloc(1024);
    pe.write('MZ', 0, 'latin1');
    pe.writeUInt32LE(0xc0, 60);
    pe.write('PE\0\0', 0xc0, 'latin1');
    const response = Buffer.concat([Buffer.from(head, 'latin1'), pe]);
    const file = path.join(dir, 'exe-as-png.pcap');
    // The head alone in the first segment, then the body's first 40 bytes (e_lfanew not yet in), then the rest.
    tcpCapture(file, 80, [
      { fromClient: true, payload: Buffer.from('GET /tablone.png HTTP/1.1\r\nHost: 185.98.87.185\r\nConnection: Keep-Alive\r\n\r\n', 'latin1') },
      ...cut(response, [head.length - 30, 30, 40]).map((payload) => ({ fromClient: false, payload })),
    ]);
    const f = await onlyFlow(file);
    expect(f.http).to.deep.include({ method: 'GET', uri: '/tablone.png', status: 200, contentType: 'image/png', bodyMagic: 'pe' });
  });

  it('skips a chunk-size line, and says "other" for a body that is no known type', async () => {
    const file = path.join(dir, 'chunked-elf.pcap');
    const body = Buffer.concat([Buffer.from('7f454c46', 'hex'), Buffer.alloc(100, 1)]);
    tcpCapture(file, 8080, [
      { fromClient: true, payload: Buffer.from('GET /logo.gif HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1') },
      { fromClient: false, payload: Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: image/gif\r\nTransfer-Encoding: chunked\r\n\r\n68\r', 'latin1') },
      { fromClient: false, payload: Buffer.concat([Buffer.from('\n'), body, Buffer.from('\r\n0\r\n\r\n')]) },
    ]);
    expect((await onlyFlow(file)).http).to.deep.include({ contentType: 'image/gif', bodyMagic: 'elf' });

    const html = path.join(dir, 'html.pcap');
    tcpCapture(html, 80, [
      { fromClient: true, payload: Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1') },
      { fromClient: false, payload: Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<!doctype html>${' '.repeat(80)}`, 'latin1') },
    ]);
    expect((await onlyFlow(html)).http).to.deep.include({ contentType: 'text/html', bodyMagic: 'other' });

    const empty = path.join(dir, 'not-modified.pcap');
    tcpCapture(empty, 80, [
      { fromClient: true, payload: Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1') },
      { fromClient: false, payload: Buffer.from('HTTP/1.1 304 Not Modified\r\nETag: "x"\r\n\r\n', 'latin1') },
    ]);
    expect((await onlyFlow(empty)).http).to.deep.include({ status: 304, contentType: null, bodyMagic: null });
  });
});
