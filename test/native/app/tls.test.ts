/**
 * TLS handshake parsing and fingerprints (native/app/tls.h) through the test-only `_parseTls` export: the record
 * assembler, ClientHello / ServerHello, JA3 / JA4 / JA4S.
 *
 * Fixtures (test/fixtures/tls/, written by make-fixtures.py with tshark 4.0's own TCP reassembly):
 *   tshark-clienthellos.json: every TCP ClientHello of the fixture captures that carry TLS (the shared ones and our
 *     own loopback capture of OpenSSL, Node, curl and Python clients), as the client's record bytes up to the end of
 *     the message, with tshark's tls.handshake.ja3 and tls.handshake.extensions_server_name.
 * JA4/JA4S against FoxIO's reference implementation, end to end: test/native/app-ja4.test.ts.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { Binding } from '../../../binding.js';
import { loadBinding } from '../../../src/native/load.js';
import { FIXTURES } from '../../helpers/setup.js';
import { bytes, hex16, hex24, hex8, records as tlsRecords } from '../../helpers/tls-hex.js';

const addon = loadBinding();
const parse = (bytes: Uint8Array | Uint8Array[], quic?: boolean): Binding.TlsParseResult => addon._parseTls(bytes, quic);

interface TsharkHello {
  file: string;
  stream: number;
  frame: number;
  ja3: string;
  ja3Full: string;
  sni: string;
  client: string;
  server: string | null;
}
const readJson = <T>(name: string): T => JSON.parse(readFileSync(path.join(FIXTURES, 'tls', name), 'utf8')) as T;
const TSHARK = readJson<TsharkHello[]>('tshark-clienthellos.json');

// ---- hex builders ----
const ascii = (s: string): string => Buffer.from(s, 'latin1').toString('hex');
const vec8 = (body: string): string => hex8(body.length / 2) + body;
const vec16 = (body: string): string => hex16(body.length / 2) + body;
const list16 = (values: number[]): string => values.map(hex16).join('');
const ext = (type: number, body = ''): string => hex16(type) + vec16(body);
const sniExt = (name: string): string => ext(0x0000, vec16('00' + vec16(ascii(name))));
/** ALPN protocol names as text, or as hex when given as `{ hex }`. */
const alpnExt = (names: (string | { hex: string })[]): string => ext(0x0010, vec16(names.map((n) => vec8(typeof n === 'string' ? ascii(n) : n.hex)).join('')));
const groupsExt = (groups: number[]): string => ext(0x000a, vec16(list16(groups)));
const pointFormatsExt = (formats: number[]): string => ext(0x000b, vec8(formats.map(hex8).join('')));
const sigAlgsExt = (algs: number[]): string => ext(0x000d, vec16(list16(algs)));
const versionsExt = (versions: number[]): string => ext(0x002b, vec8(list16(versions)));

const RANDOM = '11'.repeat(32);
/** A ClientHello handshake message (type 1, 3-byte length, body) as hex. */
function clientHello(o: { version?: number; ciphers: number[]; exts?: string[]; sessionId?: string }): string {
  const body =
    hex16(o.version ?? 0x0303) + //         legacy_version
    RANDOM + //                             random
    vec8(o.sessionId ?? '') + //            legacy_session_id
    vec16(list16(o.ciphers)) + //           cipher_suites
    '0100' + //                             compression methods: null
    (o.exts === undefined ? '' : vec16(o.exts.join(''))); // extensions
  return '01' + hex24(body.length / 2) + body;
}
/** A ServerHello handshake message as hex. */
function serverHello(o: { version?: number; cipher: number; exts?: string[] }): string {
  const body = hex16(o.version ?? 0x0303) + RANDOM + vec8('') + hex16(o.cipher) + '00' + (o.exts === undefined ? '' : vec16(o.exts.join('')));
  return '02' + hex24(body.length / 2) + body;
}
/** Wraps handshake bytes (hex) in TLS records of at most `size` bytes each, record version 0x0301 as clients send. */
const records = (msg: string, size?: number, type?: number): string => tlsRecords(msg, size, type, 0x0301);
/** The handshake message carried by a run of records (hex in, hex out). */
function unwrap(recordsHex: string): string {
  const b = bytes(recordsHex);
  let msg = '';
  for (let pos = 0; pos + 5 <= b.length;) {
    const len = b.readUInt16BE(pos + 3);
    msg += b.subarray(pos + 5, pos + 5 + len).toString('hex');
    pos += 5 + len;
  }
  return msg;
}
const md5 = (s: string): string => createHash('md5').update(s).digest('hex');
const sha12 = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 12);

// FoxIO JA4.md "Example": the ClientHello behind t13d1516h2_8daaf6152771_e5627efa2ab1.
const EX_CIPHERS = [0x1301, 0x1302, 0x1303, 0xc02b, 0xc02f, 0xc02c, 0xc030, 0xcca9, 0xcca8, 0xc013, 0xc014, 0x009c, 0x009d, 0x002f, 0x0035];
const EX_SIGS = [0x0403, 0x0804, 0x0401, 0x0503, 0x0805, 0x0501, 0x0806, 0x0601];
const EX_GROUPS = [0x001d, 0x0017, 0x0018];
/** The example's 16 extensions in the order of JA4.md (001b,0000,0033,0010,4469,0017,...,0015), with bodies. */
function exampleExts(opts: { alpn?: string[] } = {}): string[] {
  return [
    ext(0x001b, '020002'), // compress_certificate: brotli
    sniExt('example.com'),
    ext(0x0033, '0000'), // key_share (empty list)
    alpnExt(opts.alpn ?? ['h2', 'http/1.1']),
    ext(0x4469, '0003026832'), // application_settings: h2
    ext(0x0017), // extended_master_secret
    ext(0x002d, '0101'), // psk_key_exchange_modes
    sigAlgsExt(EX_SIGS),
    ext(0x0005, '0100000000'), // status_request
    ext(0x0023), // session_ticket
    ext(0x0012), // signed_certificate_timestamp
    versionsExt([0x0304, 0x0303]),
    ext(0xff01, '00'), // renegotiation_info
    pointFormatsExt([0]),
    groupsExt(EX_GROUPS),
    ext(0x0015, '0000'), // padding
  ];
}
const EXAMPLE_JA4 = 't13d1516h2_8daaf6152771_e5627efa2ab1';

describe('native TLS: ClientHello / ServerHello, JA3, JA4, JA4S', () => {
  describe('parity with tshark 4.0 on the fixture captures', () => {
    it('has ClientHellos from every capture that carries TLS over TCP', () => {
      const files = new Set(TSHARK.map((h) => h.file));
      expect(files).to.include.members(['sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap', 'sv_rawip_dlt101_tcp_tls.pcap', 'own/vigil_loopback_app_mix.pcap']);
      expect(TSHARK.length).to.equal(53);
      expect(new Set(TSHARK.map((h) => h.ja3)).size).to.be.at.least(10); // several client stacks
    });

    it('JA3 equals tls.handshake.ja3 and SNI equals tls.handshake.extensions_server_name for every ClientHello', () => {
      const mismatches: string[] = [];
      for (const h of TSHARK) {
        const r = parse(bytes(h.client));
        if (r.status !== 'tls_ok' || r.ja3 !== h.ja3 || r.sni !== h.sni) {
          mismatches.push(`${h.file} frame ${h.frame}: ${r.status} ${r.ja3} vs ${h.ja3}, "${r.sni}" vs "${h.sni}"`);
        }
      }
      expect(mismatches).to.deep.equal([]);
    });

    it('JA3 string: GREASE dropped from ciphers, extensions and groups, extensions in the order sent', () => {
      // sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap carries GREASE-sending browsers; tshark's ja3_full has no GREASE.
      const greasy = TSHARK.filter((h) => parse(bytes(h.client)).ciphers?.some((c) => (c & 0x0f0f) === 0x0a0a));
      expect(greasy.length).to.be.greaterThan(0);
      for (const h of greasy) {
        expect(h.ja3Full).to.not.match(/\b(2570|6682|10794|14906|19018|23130|27242|31354|35466|39578|43690|47802|51914|56026|60138|64250)\b/);
        expect(md5(h.ja3Full)).to.equal(parse(bytes(h.client)).ja3);
      }
    });
  });

  describe('JA4 / JA4S specification examples (FoxIO technical_details/JA4.md)', () => {
    it('reproduces the worked example t13d1516h2_8daaf6152771_e5627efa2ab1', () => {
      const r = parse(bytes(records(clientHello({ ciphers: EX_CIPHERS, exts: exampleExts() }))));
      expect(r.status).to.equal('tls_ok');
      expect(r.ja4).to.equal(EXAMPLE_JA4);
      // Section b and c from the spec's own strings, hashed here.
      expect(sha12('002f,0035,009c,009d,1301,1302,1303,c013,c014,c02b,c02c,c02f,c030,cca8,cca9')).to.equal('8daaf6152771');
      expect(sha12('0005,000a,000b,000d,0012,0015,0017,001b,0023,002b,002d,0033,4469,ff01_0403,0804,0401,0503,0805,0501,0806,0601')).to.equal('e5627efa2ab1');
    });

    it('ignores GREASE in ciphers, extensions, groups, signature algorithms and supported_versions', () => {
      const withGrease: Record<string, string> = {
        [versionsExt([0x0304, 0x0303])]: versionsExt([0x3a3a, 0x0304, 0x0303]),
        [groupsExt(EX_GROUPS)]: groupsExt([0x4a4a, ...EX_GROUPS]),
        [sigAlgsExt(EX_SIGS)]: sigAlgsExt([0x5a5a, ...EX_SIGS]),
      };
      const grease = [ext(0x0a0a), ...exampleExts().map((e) => withGrease[e] ?? e), ext(0xfafa, '00')];
      const msg = clientHello({ ciphers: [0x2a2a, ...EX_CIPHERS], exts: grease });
      const r = parse(bytes(records(msg)));
      expect(r.status).to.equal('tls_ok');
      expect(r.ja4).to.equal(EXAMPLE_JA4);
      expect(r.cipherCount).to.equal(16); // lists are kept as offered
      expect(r.extensionCount).to.equal(18);
      expect(r.version).to.equal(0x0304);
      expect(r.ja3).to.equal(parse(bytes(records(clientHello({ ciphers: EX_CIPHERS, exts: exampleExts() })))).ja3);
    });

    it('builds the JA3 string as decimal fields joined with "-"', () => {
      const msg = clientHello({
        ciphers: [0x1a1a, 0xc02b, 0x002f],
        exts: [ext(0x2a2a), sniExt('a.example'), groupsExt([0x4a4a, 0x001d, 0x0017]), pointFormatsExt([0, 1, 2]), ext(0x0017)],
      });
      expect(parse(bytes(records(msg))).ja3).to.equal(md5('771,49195-47,0-10-11-23,29-23,0-1-2'));
      const bare = clientHello({ version: 0x0301, ciphers: [0x0035] }); // no extensions block at all
      expect(parse(bytes(records(bare))).ja3).to.equal(md5('769,53,,,'));
    });

    it('reads the version from supported_versions, SNI d/i, and counts capped at 99', () => {
      const ciphers = Array.from({ length: 120 }, (_, i) => 0x0100 + i);
      const r = parse(bytes(records(clientHello({ version: 0x0301, ciphers, exts: [versionsExt([0x0302])] }))));
      expect(r.ja4?.slice(0, 10)).to.equal('t11i990100');
      expect(r.ja4?.slice(11, 23)).to.equal(sha12(ciphers.map(hex16).join(',')));
      expect(r.ja4?.slice(24)).to.equal(sha12('002b'));
      const tls12 = parse(bytes(records(clientHello({ ciphers: [0x002f], exts: [] }))));
      expect(tls12.ja4).to.equal(`t12i010000_${sha12('002f')}_000000000000`);
      const unknown = parse(bytes(records(clientHello({ version: 0x7f1c, ciphers: [] }))));
      expect(unknown.ja4).to.equal('t00i000000_000000000000_000000000000');
      expect(parse(bytes(records(clientHello({ ciphers: [0x002f], exts: [sniExt('x')] }))), true).ja4).to.match(/^q12d0101/);
    });

    it('ends section c without "_" when no signature algorithms are sent, and zeros when only SNI/ALPN remain', () => {
      const noSigs = exampleExts().filter((e) => !e.startsWith('000d'));
      const r = parse(bytes(records(clientHello({ ciphers: EX_CIPHERS, exts: noSigs }))));
      expect(r.ja4).to.equal(`t13d1515h2_8daaf6152771_${sha12('0005,000a,000b,0012,0015,0017,001b,0023,002b,002d,0033,4469,ff01')}`);
      expect(sha12('0005,000a,000b,000d,0012,0015,0017,001b,0023,002b,002d,0033,4469,ff01')).to.equal('6d807ffa2a79'); // JA4.md
      const onlySniAlpn = parse(bytes(records(clientHello({ ciphers: [0x1301], exts: [sniExt('a'), alpnExt(['h2'])] }))));
      expect(onlySniAlpn.ja4).to.equal(`t12d0102h2_${sha12('1301')}_000000000000`);
    });

    // JA4.md "ALPN Extension Value": alphanumeric first and last bytes as they are, else the first and last
    // characters of the value's hex form; "00" without ALPN or with an empty first value.
    const ALPN_CASES: [string, string | { hex: string } | null, string][] = [
      ['h2', 'h2', 'h2'],
      ['http/1.1', 'http/1.1', 'h1'],
      ['a single character twice', 'h', 'hh'],
      ['0xAB', { hex: 'ab' }, 'ab'],
      ['0x20', { hex: '20' }, '20'],
      ['0xAB 0xCD', { hex: 'abcd' }, 'ad'],
      ['0x20 0x61', { hex: '2061' }, '21'],
      ['0x30 0xAB', { hex: '30ab' }, '3b'],
      ['0x61 0x20', { hex: '6120' }, '60'],
      ['0x30 0x31 0xAB 0xCD', { hex: '3031abcd' }, '3d'],
      ['0x30 0xAB 0xCD 0x31', { hex: '30abcd31' }, '01'],
      ['an empty first value', '', '00'],
      ['no ALPN extension', null, '00'],
    ];
    for (const [what, first, want] of ALPN_CASES) {
      it(`ALPN ${what} -> "${want}" in JA4 and JA4S`, () => {
        const exts = first === null ? [] : [alpnExt([first, 'h2'])];
        expect(parse(bytes(records(clientHello({ ciphers: [0x1301], exts })))).ja4?.slice(8, 10)).to.equal(want);
        const sexts = first === null ? [] : [alpnExt([first])];
        expect(parse(bytes(records(serverHello({ cipher: 0x1301, exts: sexts })))).ja4s?.slice(5, 7)).to.equal(want);
      });
    }

    it('uses the last byte of a first ALPN value longer than what is kept', () => {
      const long = 'a'.repeat(100) + 'z';
      const r = parse(bytes(records(clientHello({ ciphers: [0x1301], exts: [alpnExt([long])] }))));
      expect(r.alpnFirst).to.have.length(64);
      expect(r.ja4?.slice(8, 10)).to.equal('az');
    });

    it('reproduces JA4S t120400_c030_4e8089b08790 (FoxIO rust/ja4/src/tls.rs test) and reads supported_versions', () => {
      const sh = serverHello({ cipher: 0xc030, exts: [ext(0x0005), ext(0x0017), ext(0xff01, '00'), ext(0x0000)] });
      const r = parse(bytes(records(sh)));
      expect(r).to.include({ status: 'tls_ok', type: 2, cipher: 0xc030, version: 0x0303, ja4s: 't120400_c030_4e8089b08790' });
      const tls13 = parse(bytes(records(serverHello({ cipher: 0x1301, exts: [ext(0x0033, '001d0000'), ext(0x002b, '0304')] }))));
      expect(tls13).to.include({ version: 0x0304, legacyVersion: 0x0303, ja4s: `t130200_1301_${sha12('0033,002b')}` });
      expect(parse(bytes(records(sh)), true).ja4s).to.equal('q120400_c030_4e8089b08790');
      expect(parse(bytes(records(serverHello({ cipher: 0x002f })))).ja4s).to.equal('t120000_002f_000000000000');
    });
  });

  describe('fields', () => {
    it('keeps the offered lists, SNI and ALPN as sent', () => {
      const r = parse(bytes(records(clientHello({ ciphers: EX_CIPHERS, exts: exampleExts() }))));
      expect(r).to.include({ type: 1, legacyVersion: 0x0303, version: 0x0304, sni: 'example.com', alpnFirst: 'h2', alpn: 'h2,http/1.1' });
      expect(r.ciphers).to.deep.equal(EX_CIPHERS);
      expect(r.extensions?.slice(0, 4)).to.deep.equal([0x001b, 0x0000, 0x0033, 0x0010]);
      expect(r.groups).to.deep.equal(EX_GROUPS);
      expect(r.pointFormats).to.deep.equal([0]);
      expect(r.sigAlgs).to.deep.equal(EX_SIGS);
    });

    it('keeps 128 entries of longer lists and exact counts', () => {
      const ciphers = Array.from({ length: 200 }, (_, i) => i + 1);
      const r = parse(bytes(records(clientHello({ ciphers }))));
      expect(r.status).to.equal('tls_ok');
      expect(r.cipherCount).to.equal(200);
      expect(r.ciphers).to.have.length(128);
      expect(r.ja4?.slice(4, 6)).to.equal('99');
    });

    it('cuts an SNI longer than 255 bytes', () => {
      const r = parse(bytes(records(clientHello({ ciphers: [0x1301], exts: [sniExt('a'.repeat(300))] }))));
      expect(r.status).to.equal('tls_ok');
      expect(r.sni).to.equal('a'.repeat(255));
    });
  });

  describe('record assembler', () => {
    const sample = TSHARK.find((h) => h.file === 'sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap' && h.sni !== '') as TsharkHello;
    const msg = unwrap(sample.client);
    const whole = parse(bytes(sample.client));

    it('starts from a real ClientHello in one record', () => {
      expect(whole.status).to.equal('tls_ok');
      expect(whole.messageBytes).to.equal(msg.length / 2);
      expect(whole.looksLikeTls).to.equal(true);
    });

    it('joins a ClientHello split across 2 and 3 records', () => {
      const n = msg.length / 2;
      for (const size of [Math.ceil(n / 2), Math.ceil(n / 3), 3, 1]) {
        const r = parse(bytes(records(msg, size)));
        expect(r, `records of ${size} bytes`).to.include({ status: 'tls_ok', ja3: sample.ja3, sni: sample.sni, ja4: whole.ja4 });
      }
    });

    it('joins a ClientHello split across 2 and 3 segments at every position', () => {
      const stream = bytes(records(msg, Math.ceil(msg.length / 2 / 3))); // 3 records
      for (let i = 1; i < stream.length; ++i) {
        const r = parse([stream.subarray(0, i), stream.subarray(i)]);
        if (r.status !== 'tls_ok' || r.ja3 !== sample.ja3) expect.fail(`split at ${i}: ${r.status}`);
      }
      for (let i = 1; i < stream.length; i += 7) {
        const j = Math.min(stream.length - 1, i + 3);
        const r = parse([stream.subarray(0, i), stream.subarray(i, j), stream.subarray(j)]);
        if (r.status !== 'tls_ok' || r.ja3 !== sample.ja3) expect.fail(`split at ${i}, ${j}: ${r.status}`);
      }
    });

    it('takes the first message when one segment holds several records and messages', () => {
      const sh = serverHello({ cipher: 0xc02f, exts: [ext(0xff01, '00')] });
      const cert = '0b' + hex24(3) + '000000';
      // ServerHello and Certificate in one record, then a second record, all in one segment.
      const r = parse(bytes(records(sh + cert) + records(cert)));
      expect(r).to.include({ status: 'tls_ok', type: 2, cipher: 0xc02f, messageBytes: sh.length / 2 });
      // A ClientHello over 3 records followed by a ChangeCipherSpec record in the same segment.
      const r2 = parse(bytes(records(msg, Math.ceil(msg.length / 2 / 3)) + '140303000101'));
      expect(r2).to.include({ status: 'tls_ok', ja3: sample.ja3 });
    });

    it('needs more at every proper prefix of the stream (truncation at every byte)', () => {
      for (const h of [sample, ...TSHARK.filter((x) => x.server !== null).slice(0, 3)]) {
        for (const hex of [h.client, h.server].filter((x): x is string => x !== null)) {
          const stream = bytes(hex);
          for (let i = 0; i < stream.length; ++i) {
            const r = parse(stream.subarray(0, i));
            if (r.status !== 'tls_need_more') expect.fail(`${h.file} frame ${h.frame} prefix ${i}: ${r.status}`);
          }
          expect(parse(stream).status).to.equal('tls_ok');
        }
      }
    });

    it('reports a message cut inside its body as truncated, at every byte', () => {
      const ch = clientHello({ ciphers: EX_CIPHERS, exts: exampleExts() });
      const sh = serverHello({ cipher: 0x1301, exts: [ext(0x002b, '0304'), alpnExt(['h2'])] });
      for (const [m, noExtBytes] of [
        [ch, 2 + 32 + 1 + 2 + EX_CIPHERS.length * 2 + 2],
        [sh, 2 + 32 + 1 + 2 + 1],
      ] as const) {
        const body = m.slice(8);
        for (let k = 0; k < body.length / 2; ++k) {
          // The handshake header claims k bytes: the parser sees every prefix of the body as a whole message.
          const r = parse(bytes(records(m.slice(0, 2) + hex24(k) + body.slice(0, 2 * k))));
          const want = k === noExtBytes ? 'tls_ok' : 'tls_truncated';
          if (r.status !== want) expect.fail(`body prefix ${k}: ${r.status}, expected ${want}`);
        }
      }
    });

    it('reports malformed vectors inside extensions as bad handshakes', () => {
      const badSni = ext(0x0000, '0005' + '00' + '0009' + ascii('ab')); // host name longer than its list
      expect(parse(bytes(records(clientHello({ ciphers: [0x1301], exts: [badSni] })))).status).to.equal('tls_bad_handshake');
      const oddCiphers = '01' + hex24(2 + 32 + 1 + 2 + 3 + 2) + '0303' + RANDOM + '00' + '0003' + '130113' + '0100';
      expect(parse(bytes(records(oddCiphers))).status).to.equal('tls_bad_handshake');
      const badExtLen = clientHello({ ciphers: [0x1301], exts: ['0000' + 'ffff'] });
      expect(parse(bytes(records(badExtLen))).status).to.equal('tls_bad_handshake');
    });

    it('rejects a record of another content type, a bad version or length, and other handshake types', () => {
      const ch = clientHello({ ciphers: [0x1301] });
      expect(parse(bytes(records(ch, 16384, 23)))).to.include({ status: 'tls_not_tls', looksLikeTls: false });
      // The first record is a handshake record, the second an alert, before the message is complete.
      const half = ch.slice(0, 40);
      expect(parse(bytes(records(half) + records(ch.slice(40), 16384, 21))).status).to.equal('tls_not_tls');
      expect(parse(bytes('160200' + hex16(ch.length / 2) + ch)).status).to.equal('tls_bad_record');
      expect(parse(bytes('1603010000')).status).to.equal('tls_bad_record');
      expect(parse(bytes('160301ffff')).status).to.equal('tls_bad_record');
      expect(parse(bytes(records('04' + hex24(4) + '00000000'))).status).to.equal('tls_bad_handshake');
      expect(parse(bytes('474554202f20485454502f312e310d0a')).status).to.equal('tls_not_tls'); // "GET / HTTP/1.1"
    });

    it('collects a message up to 16384 bytes and gives up beyond', () => {
      // Padding extension sized so that the whole message is exactly 16384 bytes, then one byte more.
      const base = clientHello({ ciphers: [0x1301], exts: [ext(0x0015, '')] }).length / 2;
      const pad = (n: number): string => clientHello({ ciphers: [0x1301], exts: [ext(0x0015, '00'.repeat(n))] });
      expect(pad(16384 - base).length / 2).to.equal(16384);
      expect(parse(bytes(records(pad(16384 - base), 4000)))).to.include({ status: 'tls_ok', messageBytes: 16384 });
      expect(parse(bytes(records(pad(16385 - base), 4000))).status).to.equal('tls_too_large');
      // Known from the handshake header alone.
      expect(parse(bytes('1603010004' + '01ffffff')).status).to.equal('tls_too_large');
    });

    it('LooksLikeTlsHandshake: content type 22, version 3.x, sane length', () => {
      expect(parse(bytes('1603010005')).looksLikeTls).to.equal(true);
      expect(parse(bytes('16030400ff')).looksLikeTls).to.equal(true);
      expect(parse(bytes('1603')).looksLikeTls).to.equal(false);
      expect(parse(bytes('1703030005')).looksLikeTls).to.equal(false);
      expect(parse(bytes('1602000005')).looksLikeTls).to.equal(false);
      expect(parse(bytes('1603050005')).looksLikeTls).to.equal(false);
      expect(parse(bytes('1603010000')).looksLikeTls).to.equal(false);
      expect(parse(bytes('1603014801')).looksLikeTls).to.equal(false);
    });

    it('throws TypeError on bad arguments', () => {
      expect(() => addon._parseTls('16' as unknown as Uint8Array)).to.throw(TypeError);
      expect(() => addon._parseTls([new Uint8Array(1), 'x' as unknown as Uint8Array])).to.throw(TypeError);
      expect(() => addon._parseTls(new Uint8Array(1), 1 as unknown as boolean)).to.throw(TypeError);
    });
  });
});

/** A TLS record: content type, version 3.3, the 2-byte length, the body. */
function record(type: number, body: Uint8Array, version = 0x0303): Buffer {
  const h = Buffer.alloc(5);
  h[0] = type;
  h.writeUInt16BE(version, 1);
  h.writeUInt16BE(body.length, 3);
  return Buffer.concat([h, body]);
}
/** A plaintext heartbeat message (RFC 6520 §4): type, payload_length, then `carried` payload and `padding` bytes. */
function heartbeat(type: 1 | 2, payloadLength: number, carried: number, padding: number): Buffer {
  const b = Buffer.alloc(3 + carried + padding, 0x41);
  b[0] = type;
  b.writeUInt16BE(payloadLength, 1);
  return b;
}
/** Splits bytes into segments of `size` (the last may be shorter). */
function segments(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

describe('TlsRecordWalker (native/app/tls.cpp) through _tlsRecords', () => {
  const hello = record(22, Buffer.alloc(262, 1)); // a handshake record of a ClientHello's size (body not parsed here)
  const appData = record(23, Buffer.alloc(100, 7));

  it('finds the Heartbleed request: a plaintext heartbeat that claims more than it carries, before any data', () => {
    // The shape of Zeek's testing/btest/Traces/tls/heartbleed.pcap (client 173.203.79.216:46592): after its
    // ClientHello the client sends record 18 03 03 3f f0 (16368 bytes) whose message is 01 3f ed (request,
    // payload_length 16365): 3 + 16365 + 16 > 16368. Fed in that capture's segment sizes after the hello.
    const attack = record(24, heartbeat(1, 16365, 16365, 0));
    expect(attack.subarray(0, 8).toString('hex')).to.equal('1803033ff0013fed');
    const cuts = [4344, 1448, 1448, 4344, 1448, 3341];
    const segs: Buffer[] = [hello];
    let at = 0;
    for (const n of cuts) {
      segs.push(attack.subarray(at, at + n));
      at += n;
    }
    expect(at).to.equal(attack.length);
    const r = addon._tlsRecords(segs);
    expect(r).to.deep.equal({
      status: 'tls_need_more',
      done: false,
      records: 2,
      appData: false,
      heartbeats: 1,
      maxLen: 16368,
      early: true,
      overlong: true,
      short: false,
    });
  });

  it('reads record headers split anywhere: every segment size from 1 to 40 gives the same counts', () => {
    const stream = Buffer.concat([hello, record(20, Buffer.from([1])), appData, record(24, Buffer.alloc(40, 9)), appData, record(21, Buffer.alloc(26))]);
    for (let size = 1; size <= 40; size++) {
      const r = addon._tlsRecords(segments(stream, size));
      expect(r, `segments of ${size}`).to.include({ status: 'tls_need_more', records: 6, appData: true, heartbeats: 1, maxLen: 40 });
      // After ChangeCipherSpec the heartbeat is encrypted: not read, not early (data came first), long enough.
      expect(r, `segments of ${size}`).to.include({ early: false, overlong: false, short: false });
    }
  });

  it('judges a plaintext request by payload_length against record length minus 19 (Zeek heartbleed.zeek)', () => {
    const honest = addon._tlsRecords([hello, record(24, heartbeat(1, 16, 16, 16))]);
    expect(honest).to.include({ heartbeats: 1, maxLen: 35, overlong: false, short: false, early: true });
    const oneOver = addon._tlsRecords([hello, record(24, heartbeat(1, 17, 16, 16))]);
    expect(oneOver).to.include({ overlong: true });
    // The classic scanner probe (ET "Malformed HeartBeat Request"): 18 03 02 00 03 01 40 00, a 3-byte record
    // claiming 16384 bytes; also shorter than the 19-byte minimum.
    const probe = addon._tlsRecords([hello, Buffer.from('1803020003014000', 'hex')]);
    expect(probe).to.include({ heartbeats: 1, maxLen: 3, overlong: true, short: true });
    // A response (type 2) is not a request, whatever its length field says.
    expect(addon._tlsRecords([hello, record(24, heartbeat(2, 400, 16, 16))])).to.include({ overlong: false });
    // Records too short for the heartbeat header count as claiming more than they carry.
    expect(addon._tlsRecords([hello, record(24, Buffer.from([1]))])).to.include({ overlong: true, short: true });
    expect(addon._tlsRecords([hello, record(24, Buffer.alloc(0))])).to.include({ overlong: true, short: true });
  });

  it('calls a heartbeat early only while neither side has sent application data', () => {
    const hb = record(24, Buffer.alloc(64, 3));
    expect(addon._tlsRecords([hello, record(20, Buffer.from([1])), hb])).to.include({ early: true, overlong: false });
    expect(addon._tlsRecords([hello, record(20, Buffer.from([1])), hb], true)).to.include({ early: false });
    expect(addon._tlsRecords([hello, record(20, Buffer.from([1])), appData, hb])).to.include({ early: false });
    // An empty application data record (TLS 1.0's CBC countermeasure) carries nothing.
    expect(addon._tlsRecords([hello, record(20, Buffer.from([1])), record(23, Buffer.alloc(0)), hb])).to.include({ early: true });
  });

  it('counts many heartbeats and keeps the largest', () => {
    const lens = [40, 19, 4000, 64];
    const r = addon._tlsRecords([hello, record(20, Buffer.from([1])), appData, ...lens.map((n) => record(24, Buffer.alloc(n)))]);
    expect(r).to.include({ heartbeats: 4, maxLen: 4000, short: false, early: false });
    expect(addon._tlsRecords([hello, record(20, Buffer.from([1])), record(24, Buffer.alloc(18))])).to.include({ short: true });
  });

  it('stops at a header that is not TLS, and at its record budget', () => {
    for (const bad of ['1903030010', '1802030010', '17030348ff', '0003030010']) {
      const r = addon._tlsRecords([hello, Buffer.from(bad, 'hex'), record(24, Buffer.alloc(40))]);
      expect(r, bad).to.include({ status: 'tls_bad_record', done: true, records: 1, heartbeats: 0 });
    }
    // A record of 18432 bytes (the TLSCiphertext limit) is allowed; one more is not.
    expect(addon._tlsRecords([Buffer.from('1703034800', 'hex')])).to.include({ status: 'tls_need_more', records: 1 });
    expect(addon._tlsRecords([Buffer.from('1703034801', 'hex')])).to.include({ status: 'tls_bad_record' });
    const empty = record(23, Buffer.alloc(0));
    const many = Buffer.concat(Array.from({ length: 4100 }, () => empty));
    const r = addon._tlsRecords([many, record(24, Buffer.alloc(40))]);
    expect(r).to.include({ status: 'tls_ok', done: true, records: 4096, heartbeats: 0 });
  });

  it('returns a status for every prefix of a stream with a heartbeat', () => {
    const stream = Buffer.concat([hello, record(24, heartbeat(1, 16365, 100, 0)), appData]);
    for (let n = 0; n <= stream.length; n++) {
      const r = addon._tlsRecords([stream.subarray(0, n)]);
      expect(r.status).to.equal('tls_need_more');
      expect(r.heartbeats).to.equal(n >= hello.length + 5 ? 1 : 0);
      if (n >= hello.length + 8) expect(r.overlong, `${n}`).to.equal(true);
    }
  });
});
