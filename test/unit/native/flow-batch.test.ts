/**
 * src/native/flow-batch.ts: timestamp formatting, batch decoding from a hand-built buffer, and the
 * layout check against the built addon.
 */
import { expect } from 'chai';
import { columnFlowRecords, decodeFlowBatch, flowColumns, flowTexts, isoTimestamp, shiftFlowTimes } from '../../../src/native/flow-batch.js';
import {
  BATCH_LAYOUT_VERSION,
  checkLayout,
  FLOW_COLUMN,
  FLOW_COLUMNS,
  TEXT_COLUMN,
  TEXT_COLUMNS,
  type FlowColumnName,
} from '../../../src/native/flow-columns.js';
import { loadBinding } from '../../../src/native/load.js';

describe('isoTimestamp()', () => {
  it('keeps microseconds (6 digits) or nanoseconds (9 digits)', () => {
    expect(isoTimestamp(1499348407, 419016000, 6)).to.equal('2017-07-06T13:40:07.419016Z');
    expect(isoTimestamp(1499348407, 419016123, 9)).to.equal('2017-07-06T13:40:07.419016123Z');
    expect(isoTimestamp(0, 5, 9)).to.equal('1970-01-01T00:00:00.000000005Z');
  });
});

describe('decodeFlowBatch()', () => {
  /** A batch as the encoder lays it out (batch_encoder.h): header, Float64 columns, addresses, text ends, text. */
  function batch(n: number, set: (col: string, i: number) => number, addrs: Uint8Array, text: (col: string, i: number) => string = () => ''): ArrayBuffer {
    const ncols = FLOW_COLUMNS.length;
    const ntext = TEXT_COLUMNS.length;
    const values = TEXT_COLUMNS.flatMap((name) => Array.from({ length: n }, (_, i) => Buffer.from(text(name, i), 'utf8')));
    const textBlock = Buffer.concat(values);
    const fixed = 16 + n * ncols * 8 + n * 32 + n * ntext * 4;
    const buf = new ArrayBuffer(fixed + textBlock.length);
    new Uint32Array(buf, 0, 4).set([BATCH_LAYOUT_VERSION, n, ncols, ntext]);
    const cols = new Float64Array(buf, 16, n * ncols);
    FLOW_COLUMNS.forEach((name, c) => {
      for (let i = 0; i < n; i++) cols[c * n + i] = set(name, i);
    });
    new Uint8Array(buf, 16 + n * ncols * 8).set(addrs);
    const ends = new Uint32Array(buf, 16 + n * ncols * 8 + n * 32, n * ntext);
    let end = 0;
    values.forEach((v, k) => {
      end += v.length;
      ends[k] = end;
    });
    new Uint8Array(buf, fixed).set(textBlock);
    return buf;
  }

  it('turns columns into FlowRecords (addresses, times, end reason, early arrays)', () => {
    const values: Record<string, number[]> = {
      id: [7, 8],
      srcPort: [36196, 8],
      dstPort: [80, 0],
      protocol: [6, 58],
      ipVersion: [4, 6],
      firstSec: [1499348407, 1],
      firstNsec: [419016000, 500],
      lastSec: [1499348412, 2],
      lastNsec: [425928000, 0],
      durationUs: [5006912, 999999.5],
      endReason: [2, 6],
      packets: [11, 1],
      earlyCount: [2, 1],
      earlySize0: [60, 104],
      earlySize1: [60, 0],
      earlyDir1: [1, 0],
      earlyIatUs1: [131, 0],
    };
    const addrs = new Uint8Array(64);
    addrs.set([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 172, 16, 0, 1], 0); // src 0
    addrs[16] = 0xfe; // src 1: fe80::1
    addrs[17] = 0x80;
    addrs[31] = 1;
    addrs.set([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 10, 50], 32); // dst 0
    addrs[48] = 0xff; // dst 1: ff02::1
    addrs[49] = 0x02;
    addrs[63] = 1;
    const flows = decodeFlowBatch(
      batch(2, (c, i) => values[c]?.[i] ?? 0, addrs),
      9,
    );
    expect(flows).to.have.length(2);
    const [a, b] = flows;
    expect([a.id, a.srcIp, a.srcPort, a.dstIp, a.dstPort, a.protocol, a.ipVersion]).to.deep.equal([7, '172.16.0.1', 36196, '192.168.10.50', 80, 6, 4]);
    expect(a.firstSeen).to.equal('2017-07-06T13:40:07.419016000Z');
    expect(a.firstSeenMs).to.equal(1499348407419.016);
    expect(a.endReason).to.equal('fin');
    expect(a.earlySizes).to.deep.equal([60, 60]);
    expect(a.earlyDirections).to.deep.equal([0, 1]);
    expect(a.earlyIatUs).to.deep.equal([0, 131]);
    expect([b.srcIp, b.dstIp, b.ipVersion, b.endReason, b.durationUs]).to.deep.equal(['fe80::1', 'ff02::1', 6, 'snapshot', 999999.5]);
  });

  it('reads the application layer: label, server name, DNS, TLS, HTTP, SSH, DHCP and Community ID (null when absent)', () => {
    const values: Record<string, number[]> = {
      app: [1, 0],
      appBy: [1, 0],
      serverNameSource: [4, 0],
      dnsQtype: [1, -1],
      dnsRcode: [0, -1],
      tlsVersion: [0x0304, -1],
      tlsCipher: [0x1301, -1],
      tlsHbClient: [1, 0],
      tlsHbServer: [2, 0],
      tlsHbClientMaxLen: [16368, 0],
      tlsHbServerMaxLen: [16384, 0],
      tlsHbFlags: [1 | 2 | (4 << 3), 0],
      httpStatus: [200, -1],
      httpRequests: [3, 0],
      httpBodyMagic: [2, 0],
      tlsCertFlags: [1 | 2 | 4, 0],
      tlsCertNotBefore: [1650535726, 0],
      tlsCertNotAfter: [1682071726, 0],
    };
    const texts: Record<string, string[]> = {
      serverName: ['example.com', ''],
      dnsQuery: ['www.example.com', ''],
      dnsAnswers: ['CNAME\x1f300\x1fexample.com\x1eA\x1f60\x1f93.184.216.34', ''],
      tlsSni: ['example.com', ''],
      tlsJa3: ['0123456789abcdef0123456789abcdef', ''],
      httpMethod: ['GET', ''],
      httpUri: ['/ä?x=1', ''],
      httpContentType: ['image/png', ''],
      sshClient: ['SSH-2.0-OpenSSH_8.9p1', ''],
      dhcpMac: ['00:11:22:33:44:55', ''],
      communityId: ['1:LQU9qZlK+B5F3KDmev6m5PMibrg=', ''],
      tlsCertSubjectCn: ['example.com', ''],
      tlsCertSubjectO: ['Global Security', ''],
      tlsCertIssuerCn: ['Grüne CA', ''],
      tlsCertIssuerOu: ['IT Department', ''],
    };
    const [a, b] = decodeFlowBatch(
      batch(
        2,
        (c, i) => values[c]?.[i] ?? 0,
        new Uint8Array(64),
        (c, i) => texts[c]?.[i] ?? '',
      ),
    );
    expect([a.app, a.appBy, a.serverName, a.serverNameSource, a.communityId]).to.deep.equal([
      'dns',
      'content',
      'example.com',
      'dns',
      '1:LQU9qZlK+B5F3KDmev6m5PMibrg=',
    ]);
    expect(a.dns).to.deep.equal({
      query: 'www.example.com',
      qtype: 1,
      rcode: 0,
      answers: [
        { type: 'CNAME', ttl: 300, value: 'example.com' },
        { type: 'A', ttl: 60, value: '93.184.216.34' },
      ],
    });
    expect(a.tls).to.deep.equal({
      version: 'TLS 1.3',
      sni: 'example.com',
      alpn: null,
      ja3: '0123456789abcdef0123456789abcdef',
      ja4: null,
      ja4s: null,
      cipher: '1301',
      heartbeats: {
        client: { records: 1, maxLen: 16368, early: true, overlong: true, short: false },
        server: { records: 2, maxLen: 16384, early: false, overlong: false, short: true },
      },
      certificate: {
        subject: { cn: 'example.com', o: 'Global Security', ou: null },
        issuer: { cn: 'Grüne CA', o: null, ou: 'IT Department' },
        selfSigned: true,
        notBefore: '2022-04-21T10:08:46Z',
        notAfter: '2023-04-21T10:08:46Z',
      },
    });
    expect(a.http).to.deep.equal({
      method: 'GET',
      host: null,
      uri: '/ä?x=1',
      userAgent: null,
      status: 200,
      requests: 3,
      contentType: 'image/png',
      bodyMagic: 'pe',
    });
    expect(a.ssh).to.deep.equal({ client: 'SSH-2.0-OpenSSH_8.9p1', server: null });
    expect(a.dhcp).to.deep.equal({ hostname: null, mac: '00:11:22:33:44:55' });
    expect([b.app, b.appBy, b.serverName, b.serverNameSource, b.dns, b.tls, b.http, b.ssh, b.dhcp, b.communityId]).to.deep.equal([
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
    // Column-backed records read the same values.
    const columns = columnFlowRecords(
      batch(
        2,
        (c, i) => values[c]?.[i] ?? 0,
        new Uint8Array(64),
        (c, i) => texts[c]?.[i] ?? '',
      ),
    );
    const [ca] = columns;
    expect(JSON.parse(JSON.stringify(ca))).to.deep.equal(JSON.parse(JSON.stringify(a)));
    // One text at a time, from the batch and from the plain records alike: the encoder's text (joined columns joined),
    // its presence, and byte comparisons that agree with string equality, non-ASCII texts included.
    for (const t of [flowTexts(columns), flowTexts([a, b])]) {
      TEXT_COLUMNS.forEach((name, c) => {
        const v = texts[name]?.[0] ?? '';
        expect([t.text(c, 0), t.text(c, 1), t.hasText(c, 0), t.hasText(c, 1)], name).to.deep.equal([v === '' ? null : v, null, v !== '', false]);
        expect([t.textIs(c, 0, v), t.textIs(c, 1, ''), t.textIs(c, 0, `${v}.`)], name).to.deep.equal([v !== '', false, false]);
      });
      expect(t.textIs(TEXT_COLUMN.tlsCertIssuerCn, 0, 'Grüne CA')).to.equal(true);
      expect(t.textIs(TEXT_COLUMN.tlsCertIssuerCn, 0, 'Grune CA')).to.equal(false);
      expect(t.textIs(TEXT_COLUMN.tlsCertIssuerCn, 0, 'Grün')).to.equal(false);
      expect(t.textIs(TEXT_COLUMN.httpUri, 0, '/a?x=1')).to.equal(false);
      expect(t.textIs(TEXT_COLUMN.tlsCertSubjectO, 0, 'Global Securitx')).to.equal(false);
    }
    // Plain records write the same columns back (the detectors' column view of a plain batch).
    const view = flowColumns([a, b]);
    for (const [name, v] of Object.entries(values)) {
      expect(
        [0, 1].map((i) => view.cols[FLOW_COLUMN[name as FlowColumnName] * 2 + i]),
        name,
      ).to.deep.equal(v);
    }
  });

  it('reads texts of dense and sparse columns alike, again and again, and through the records', () => {
    // 40 flows: every flow has a server name (dense), flows 3, 4 and 39 an HTTP URI (sparse), flow 0 a DNS query
    // (the first of its column), so both kinds of per-column memory are read twice and in any order.
    const n = 40;
    const uris: Record<number, string> = { 3: '/a', 4: '/b?q=1', 39: '/ünï' };
    const text = (col: string, i: number): string =>
      col === 'serverName' ? `h${i}.example` : col === 'httpUri' ? (uris[i] ?? '') : col === 'dnsQuery' && i === 0 ? 'q.example' : '';
    const records = columnFlowRecords(batch(n, () => 0, new Uint8Array(32 * n), text));
    const t = flowTexts(records);
    for (const order of [[...Array(n).keys()].reverse(), [...Array(n).keys()]]) {
      for (const i of order) {
        expect(t.text(TEXT_COLUMN.serverName, i)).to.equal(`h${i}.example`);
        expect(t.text(TEXT_COLUMN.httpUri, i)).to.equal(uris[i] ?? null);
        expect(t.text(TEXT_COLUMN.dnsQuery, i)).to.equal(i === 0 ? 'q.example' : null);
        expect(t.textIs(TEXT_COLUMN.httpUri, i, uris[i] ?? '/a')).to.equal(uris[i] !== undefined);
      }
    }
    expect(records.map((r) => r.http?.uri ?? null).filter((u) => u !== null)).to.deep.equal(['/a', '/b?q=1', '/ünï']);
    expect(records[7]?.serverName).to.equal('h7.example');
  });

  it('rejects buffers that do not match their header', () => {
    const good = batch(1, () => 0, new Uint8Array(32));
    expect(() => decodeFlowBatch(good.slice(0, good.byteLength - 1))).to.throw(RangeError);
    const wrongVersion = good.slice(0);
    new Uint32Array(wrongVersion, 0, 1)[0] = 99;
    expect(() => decodeFlowBatch(wrongVersion)).to.throw(RangeError, /layout 99/);
    expect(() => decodeFlowBatch(new ArrayBuffer(4))).to.throw(RangeError);
  });

  it('shiftFlowTimes() moves every flow on by whole seconds in place and returns the span before the shift', () => {
    const times: Record<string, number[]> = { firstSec: [100, 90], firstNsec: [5, 250_000_000], lastSec: [130, 95], lastNsec: [7, 0] };
    const buf = batch(2, (col, i) => times[col]?.[i] ?? 0, new Uint8Array(64));
    expect(shiftFlowTimes(buf, 25)).to.deep.equal({ firstMs: 90_250, lastMs: 130_000.000007 });
    const [a, b] = columnFlowRecords(buf);
    expect([a.firstSeen, a.lastSeen, b.firstSeen, b.lastSeen]).to.deep.equal([
      '1970-01-01T00:02:05.000000Z',
      '1970-01-01T00:02:35.000000Z',
      '1970-01-01T00:01:55.250000Z',
      '1970-01-01T00:02:00.000000Z',
    ]);
    expect(decodeFlowBatch(buf, 9)[0]!.firstSeen).to.equal('1970-01-01T00:02:05.000000005Z');
    expect(shiftFlowTimes(buf, 0)).to.deep.equal({ firstMs: 115_250, lastMs: 155_000.000007 }); // 0: nothing moves
    expect(
      shiftFlowTimes(
        batch(0, () => 0, new Uint8Array(0)),
        5,
      ),
    ).to.equal(null);
    expect(() => shiftFlowTimes(buf, 1.5)).to.throw(RangeError, 'offsetSec must be a non-negative whole number, got 1.5');
    expect(() => shiftFlowTimes(buf, -1)).to.throw(RangeError);
  });
});

describe('checkLayout()', () => {
  it('accepts the built addon and refuses a different layout', () => {
    const addon = loadBinding();
    expect(() => checkLayout(addon)).to.not.throw();
    expect(() => checkLayout({ ...addon, batchLayoutVersion: 1 })).to.throw(/rebuild/);
    expect(() => checkLayout({ ...addon, flowColumns: addon.flowColumns.slice(1) })).to.throw(/columns differ/);
    expect(() => checkLayout({ ...addon, flowTextColumns: addon.flowTextColumns.slice(1) })).to.throw(/text columns differ/);
    expect(() => checkLayout({ ...addon, appNames: [...addon.appNames, 'gopher'] })).to.throw(/labels differ/);
  });
});
