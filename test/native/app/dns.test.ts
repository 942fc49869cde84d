/**
 * DNS parser tests: real payloads from the fixture captures through the real C++ ParseDns (test-only `_parseDns`),
 * checked against the values tshark 4.0 prints for them, then hand-built messages for name rendering, compression,
 * malformed names and truncation at every byte.
 */
import { expect } from 'chai';

import type { Binding } from '../../../binding.js';
import { loadBinding } from '../../../src/native/load.js';

const addon = loadBinding();
const parse = (bytes: Uint8Array): Binding.ParsedDns => addon._parseDns(bytes);

const STATUSES: Binding.DnsStatusName[] = ['dns_ok', 'dns_truncated', 'dns_bad_label', 'dns_pointer_loop', 'dns_no_question'];

interface TsharkAnswer {
  type: number;
  ttl: number;
  name: string;
  address: string;
  cname: string;
}
interface RealVector {
  /** Capture (test/fixtures/pcaps, or /work/shared/data/pcaps for the bench file) and frame number. */
  source: string;
  status: Binding.DnsStatusName;
  /** UDP payload (TCP: without the 2-byte length). */
  hex: string;
  /**
   * tshark -T json: dns.qry.name / dns.qry.type of the first question, dns.flags.rcode (null in queries) and the
   * answer section's A, AAAA and CNAME records (dns.resp.type, dns.resp.ttl, dns.resp.name, dns.a / dns.aaaa,
   * dns.cname), the first eight.
   */
  tshark: { query: string | null; qtype: number | null; rcode: number | null; answers: TsharkAnswer[] };
}

// Payloads extracted from the captures with the values tshark printed for them (the bench file is
// bench_ndpi_merged_ethernet_mixed.pcap in /work/shared/data/pcaps, see /work/shared/data/SOURCES.md).
const REAL: RealVector[] = [
  {
    // sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap frame 7: query for an A record
    source: 'sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap#7',
    status: 'dns_ok',
    hex: ['17c101000001000000000000066d616d7a6f6e0272750000010001'].join(''),
    tshark: { query: 'mamzon.ru', qtype: 1, rcode: null, answers: [] },
  },
  {
    // sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap frame 8: one A answer, owner name compressed
    source: 'sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap#8',
    status: 'dns_ok',
    hex: ['17c181800001000100000000066d616d7a6f6e0272750000010001c00c0001000100000e1000048ac9d016'].join(''),
    tshark: { query: 'mamzon.ru', qtype: 1, rcode: 0, answers: [{ type: 1, ttl: 3600, name: 'mamzon.ru', address: '138.201.208.22', cname: '' }] },
  },
  {
    // sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap frame 34: six CNAMEs then an A (a CDN chain)
    source: 'sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap#34',
    status: 'dns_ok',
    hex: [
      'c2c3818000010007000000000563746c646c0d77696e646f777375706461746503636f6d0000010001c00c0005000100',
      '000d07001f0a77752d62672d7368696d0e747261666669636d616e61676572036e657400c0350005000100000023000f',
      '02777509617a75726565646765c04fc06000050001000005ff0008027775026563c063c07b0005000100000023002002',
      '62670e6170722d35326464322d303530330b6564676563617374646e73c04fc08f0005000100000023001203686c620b',
      '6170722d35326464322d30c0a1c0bb0005000100000023001104637331310377706305763063646ec04fc0d900010001',
      '00000d0700045db8ddf0',
    ].join(''),
    tshark: {
      query: 'ctldl.windowsupdate.com',
      qtype: 1,
      rcode: 0,
      answers: [
        { type: 5, ttl: 3335, name: 'ctldl.windowsupdate.com', address: '', cname: 'wu-bg-shim.trafficmanager.net' },
        { type: 5, ttl: 35, name: 'wu-bg-shim.trafficmanager.net', address: '', cname: 'wu.azureedge.net' },
        { type: 5, ttl: 1535, name: 'wu.azureedge.net', address: '', cname: 'wu.ec.azureedge.net' },
        { type: 5, ttl: 35, name: 'wu.ec.azureedge.net', address: '', cname: 'bg.apr-52dd2-0503.edgecastdns.net' },
        { type: 5, ttl: 35, name: 'bg.apr-52dd2-0503.edgecastdns.net', address: '', cname: 'hlb.apr-52dd2-0.edgecastdns.net' },
        { type: 5, ttl: 35, name: 'hlb.apr-52dd2-0.edgecastdns.net', address: '', cname: 'cs11.wpc.v0cdn.net' },
        { type: 1, ttl: 3335, name: 'cs11.wpc.v0cdn.net', address: '93.184.221.240', cname: '' },
      ],
    },
  },
  {
    // zeek_dns_v4_v6_ipv4_fragments.pcap frame 32: one AAAA answer
    source: 'zeek_dns_v4_v6_ipv4_fragments.pcap#32',
    status: 'dns_ok',
    hex: [
      '41c4841000010001000000010770646e7331353408756c747261646e730362697a00001c0001c00c001c000100015180',
      '0010261000a11015000000000000000000be0000291000000080000000',
    ].join(''),
    tshark: {
      query: 'pdns154.ultradns.biz',
      qtype: 28,
      rcode: 0,
      answers: [{ type: 28, ttl: 86400, name: 'pdns154.ultradns.biz', address: '2610:a1:1015::be', cname: '' }],
    },
  },
  {
    // zeek_dns_v4_v6_ipv4_fragments.pcap frame 9: CNAME then A, with authority and additional records skipped
    source: 'zeek_dns_v4_v6_ipv4_fragments.pcap#9',
    status: 'dns_ok',
    hex: [
      'f779840000010004000000010561746c61730472697065036e65740000010001c00c0005000100005460000b0861746c',
      '61732d7569c012c00c002e000100005460009c00050803000054605ba23ab95b7a9fa941130472697065036e65740037',
      '173019742f0e1e7221eba082b1e7167c86951d7e5417d432900b9a676fc7177a445e30574d910e733f820164b6263c16',
      '9a734ae4777b4092b0b6b672f3f57c55f2f421ba7db5c9e5a2311daaec8d7aa85dc4eb0cbcbb7fd708dd004545ee220e',
      '25b610b70abe9bd02e9333bf272e5b5ae5440d034731568281cf3da6443fcec02c00010001000054600004c100069ec0',
      '2c002e000100005460009c00010803000054605ba23ab95b7a9fa941130472697065036e6574009216645fd6bb01eec3',
      '8bb96bd55b810bc3749fa6425c20e458b7e1650ac8b8fa48f7c1d5dba5f0d083d49f57e2abb56509b6ae7fd3641e32b8',
      '37e905c34b441934b33229e46d232d9f130687e255be25847dd202f8298e19790eb41ad390506aa8394ab6000f0402c8',
      'ee94239cfeb15d07c4da4802006a647e0d8d86f00cbca20000291000000080000000',
    ].join(''),
    tshark: {
      query: 'atlas.ripe.net',
      qtype: 1,
      rcode: 0,
      answers: [
        { type: 5, ttl: 21600, name: 'atlas.ripe.net', address: '', cname: 'atlas-ui.ripe.net' },
        { type: 1, ttl: 21600, name: 'atlas-ui.ripe.net', address: '193.0.6.158', cname: '' },
      ],
    },
  },
  {
    // ndpi_dns_ipv4_frag_truncated_badlen.pcap frame 1: NXDOMAIN cut by the first IPv4 fragment (authority section incomplete)
    source: 'ndpi_dns_ipv4_frag_truncated_badlen.pcap#1',
    status: 'dns_ok', // the answer section (empty) is whole; the cut falls in the authority section
    hex: [
      '0168859300010000000c00010b70686c317370727431303802616403646c61036d696c0000010001c01b000600010000',
      '021d002d086561676c65696231c0180b72616e64792e736d697468c01b77b2292b00002a300000043800093a80000003',
      '84c01b002e00010000021d009b0006080200000384592fe8e65922abd6362403646c61036d696c0043e363acda6d57e6',
      'f6fc24ea64a1f66e248fdbbb643964c6ab628252194e1fd138d4c2d23a4da50982fab260d7e5f9a6d7326ea1ba76772a',
      'd4a3ef489ab77c6d70f150c81bbcc97fb7fa1bd822918f553021a60712e5b0ab72c473916b',
    ].join(''),
    tshark: { query: 'phl1sprt108.ad.dla.mil', qtype: 1, rcode: 3, answers: [] },
  },
  {
    // ndpi_dns_ipv4_frag_truncated_badlen.pcap frame 6: CNAME kept from a response cut inside its answers
    source: 'ndpi_dns_ipv4_frag_truncated_badlen.pcap#6',
    status: 'dns_truncated',
    hex: [
      '3d8384100001000d0004000d08656467652d68647103776f63046e6f616103676f760000010001c00c00050001000001',
      '2c000c07656467652d7031016cc019c00c002e00010000012c0120000505040000012c592b8bc859225148bf8e03776f',
      '63046e6f616103676f76001fd7d868434eb69848267517a2307a0dffcb1390608bf98b331691520bb8',
    ].join(''),
    tshark: {
      query: 'edge-hdq.woc.noaa.gov',
      qtype: 1,
      rcode: 0,
      answers: [{ type: 5, ttl: 300, name: 'edge-hdq.woc.noaa.gov', address: '', cname: 'edge-p1.l.noaa.gov' }],
    },
  },
  {
    // sv_eth_lan_dns_icmp_icmpv6_smb.pcap frame 73: SRV query (qtype 33)
    source: 'sv_eth_lan_dns_icmp_icmpv6_smb.pcap#73',
    status: 'dns_ok',
    hex: ['595f01000001000000000000055f6c646170045f746370026463065f6d7364637309574f524b47524f55500b6c6f6361', '6c646f6d61696e0000210001'].join(''),
    tshark: { query: '_ldap._tcp.dc._msdcs.WORKGROUP.localdomain', qtype: 33, rcode: null, answers: [] },
  },
  {
    // bench_ndpi_merged_ethernet_mixed.pcap frame 12468: mDNS query with the unicast-response bit (qclass 0x8001)
    source: 'bench_ndpi_merged_ethernet_mixed.pcap#12468',
    status: 'dns_ok',
    hex: ['0000000000010000000000000a4c756361732d694d6163056c6f63616c00001c8001'].join(''),
    tshark: { query: 'Lucas-iMac.local', qtype: 28, rcode: null, answers: [] },
  },
  {
    // bench_ndpi_merged_ethernet_mixed.pcap frame 12472: mDNS response: no question, one AAAA answer (cache-flush bit)
    source: 'bench_ndpi_merged_ethernet_mixed.pcap#12472',
    status: 'dns_no_question',
    hex: [
      '0000840000000001000000020a4c756361732d694d6163056c6f63616c00001c8001000000780010fe80000000000000',
      'da3062fffe56001cc00c00018001000000780004a9fea6cfc00c001c8001000000780010fe80000000000000da3062ff',
      'fe56001c',
    ].join(''),
    tshark: { query: null, qtype: null, rcode: 0, answers: [{ type: 28, ttl: 120, name: 'Lucas-iMac.local', address: 'fe80::da30:62ff:fe56:1c', cname: '' }] },
  },
  {
    // bench_ndpi_merged_ethernet_mixed.pcap frame 20731: LLMNR query for ANY
    source: 'bench_ndpi_merged_ethernet_mixed.pcap#20731',
    status: 'dns_ok',
    hex: ['e6a100000001000000000000086a61736f6e2d50430000ff0001'].join(''),
    tshark: { query: 'jason-PC', qtype: 255, rcode: null, answers: [] },
  },
  {
    // bench_ndpi_merged_ethernet_mixed.pcap frame 43587: DNS over TCP (length prefix stripped), DNSKEY query with EDNS0
    source: 'bench_ndpi_merged_ethernet_mixed.pcap#43587',
    status: 'dns_ok',
    hex: ['80e4012000010000000000010877656265726c61620264650000300001000029100000008000000c000a00081b9af622', 'ab2c9740'].join(''),
    tshark: { query: 'weberlab.de', qtype: 48, rcode: null, answers: [] },
  },
  {
    // bench_ndpi_merged_ethernet_mixed.pcap frame 69659: seventeen answers: the first eight kept
    source: 'bench_ndpi_merged_ethernet_mixed.pcap#69659',
    status: 'dns_ok',
    hex: [
      'c9538180000100110000000107616e64726f696407636c69656e747306676f6f676c6503636f6d0000010001c00c0005',
      '000100000102000c07616e64726f6964016cc01cc038000100010000010200046cb10e65c03800010001000001020004',
      '6cb10e71c038000100010000010200044a7d8365c038000100010000010200044a7d8371c03800010001000001020004',
      '4a7d8366c038000100010000010200044a7d8364c038000100010000010200044a7d838ac03800010001000001020004',
      '4a7d838bc038000100010000010200044a7dcd65c038000100010000010200044a7dcd8bc03800010001000001020004',
      '4a7dcd64c0380001000100000102000440e9a166c0380001000100000102000440e9a165c03800010001000001020004',
      '40e9a18ac0380001000100000102000440e9a48ac0380001000100000102000440e9a4640000290200000000000000',
    ].join(''),
    tshark: {
      query: 'android.clients.google.com',
      qtype: 1,
      rcode: 0,
      answers: [
        { type: 5, ttl: 258, name: 'android.clients.google.com', address: '', cname: 'android.l.google.com' },
        { type: 1, ttl: 258, name: 'android.l.google.com', address: '108.177.14.101', cname: '' },
        { type: 1, ttl: 258, name: 'android.l.google.com', address: '108.177.14.113', cname: '' },
        { type: 1, ttl: 258, name: 'android.l.google.com', address: '74.125.131.101', cname: '' },
        { type: 1, ttl: 258, name: 'android.l.google.com', address: '74.125.131.113', cname: '' },
        { type: 1, ttl: 258, name: 'android.l.google.com', address: '74.125.131.102', cname: '' },
        { type: 1, ttl: 258, name: 'android.l.google.com', address: '74.125.131.100', cname: '' },
        { type: 1, ttl: 258, name: 'android.l.google.com', address: '74.125.131.138', cname: '' },
      ],
    },
  },
  {
    // bench_ndpi_merged_ethernet_mixed.pcap frame 6414: a DNS tunnel name whose display form is longer than 255 bytes: cut and flagged
    source: 'bench_ndpi_merged_ethernet_mixed.pcap#6414',
    status: 'dns_ok',
    hex: [
      '6e5c010000010000000000013e72646671643369ebe4f135daec3342cbe4f135daec3342cbe4f135daec3342cbe4f135',
      'daec3342cbe4f135daec3342cbe4f135daec3342cbe4f135daec333942cbe4f135daec3342cbe4f135daec3342cbe4f1',
      '35daec3342cbe4f135daec3342cbe4f135daec3342cbe4f135daec3342cbe4f135daec334239cbe4f135daec3342cbe4',
      'f135daec3342cbe4f135daec3342cbe4f135daec3342cbe4f135daec3342cbe4f135daec3342cbe4f135daec3342cb39',
      'e4f135daec3342cbe4f135daec3342cbe4f135daec3342cbe4f135daec3342cbe4f135daec3342cbe4f135daec3342cb',
      'e4f135daec3342cbe404f135daec067069726174650373656100000a00010000291000000080000000',
    ].join(''),
    tshark: {
      query:
        'rdfqd3i\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3.B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B.\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd.\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd\ufffd5\ufffd\ufffd3B\ufffd\ufffd.\ufffd5\ufffd\ufffd.pirate.sea',
      qtype: 10,
      rcode: null,
      answers: [],
    },
  },
];

// ---- hand-built messages ----
const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const u16 = (n: number): Buffer => Buffer.from([n >> 8, n & 0xff]);
const u32 = (n: number): Buffer => Buffer.from([n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]);

/** 12-byte header: id 0x1234, the given flags (default: standard response, no error) and section counts. */
function header(counts: { qd?: number; an?: number; ns?: number; ar?: number } = {}, flags = 0x8180): Buffer {
  return Buffer.concat([u16(0x1234), u16(flags), u16(counts.qd ?? 1), u16(counts.an ?? 0), u16(counts.ns ?? 0), u16(counts.ar ?? 0)]);
}
/** An uncompressed name: each label as length + bytes, then the root label. */
function name(...labels: (string | Buffer)[]): Buffer {
  const parts = labels.map((l) => (typeof l === 'string' ? Buffer.from(l, 'latin1') : l));
  return Buffer.concat([...parts.flatMap((p) => [Buffer.from([p.length]), p]), Buffer.from([0])]);
}
const pointer = (offset: number): Buffer => u16(0xc000 | offset);
const question = (qname: Buffer, qtype = 1, qclass = 1): Buffer => Buffer.concat([qname, u16(qtype), u16(qclass)]);
function record(owner: Buffer, type: number, ttl: number, rdata: Buffer, rclass = 1): Buffer {
  return Buffer.concat([owner, u16(type), u16(rclass), u32(ttl), u16(rdata.length), rdata]);
}
/** A query for `qname` (type A, class IN). */
const query = (qname: Buffer): Buffer => Buffer.concat([header({ qd: 1 }, 0x0100), question(qname)]);

const TYPE_A = 1;
const TYPE_CNAME = 5;
const TYPE_MX = 15;
const TYPE_AAAA = 28;

describe('ParseDns() (native/app/dns.cpp)', () => {
  describe('real payloads agree with tshark', () => {
    for (const v of REAL) {
      it(`${v.source}: ${v.tshark.query?.slice(0, 40) ?? ''}`, () => {
        const r = parse(hex(v.hex));
        expect(r.status).to.equal(v.status);
        if (r.queryTruncated) {
          // The display form is longer than the 255-byte NameText: we keep a prefix of tshark's name.
          expect(Buffer.byteLength(r.query)).to.be.within(240, 255);
          expect(v.tshark.query?.startsWith(r.query)).to.equal(true);
        } else {
          expect(r.query).to.equal(v.tshark.query ?? '');
        }
        expect(r.qtype).to.equal(v.tshark.qtype ?? 0);
        if (v.tshark.rcode !== null) expect(r.rcode).to.equal(v.tshark.rcode);
        expect(r.answers).to.deep.equal(v.tshark.answers);
        // A message cut short claims more records than its bytes hold: the content check rightly doubts it.
        expect(r.looksLikeDns).to.equal(v.source !== 'ndpi_dns_ipv4_frag_truncated_badlen.pcap#6');
      });
    }

    it('reads the header fields, the mDNS unicast-response bit and ANCOUNT beyond the eight kept', () => {
      const byFrame = (s: string): Binding.ParsedDns => parse(hex(REAL.find((v) => v.source.endsWith(s))!.hex));
      const mdnsQuery = byFrame('#12468');
      expect(mdnsQuery).to.include({ id: 0, response: false, opcode: 0, qtype: TYPE_AAAA, qclass: 1 }); // wire 0x8001
      const nxdomain = byFrame('ndpi_dns_ipv4_frag_truncated_badlen.pcap#1');
      expect(nxdomain).to.include({ response: true, rcode: 3, query: 'phl1sprt108.ad.dla.mil' });
      const many = byFrame('#69659');
      expect(many.answerCount).to.equal(17);
      expect(many.answers).to.have.length(8);
      const tunnel = byFrame('#6414');
      expect(tunnel.queryTruncated).to.equal(true);
    });
  });

  describe('names as tshark renders them', () => {
    // Each expected string is what `tshark -T fields -e dns.qry.name` printed for the same bytes (tshark 4.0.17).
    const cases: [string, Buffer, string][] = [
      ['the root name', Buffer.from([0]), '<Root>'],
      ['a label holding a dot (not escaped)', name('a.b', 'com'), 'a.b.com'],
      ['case kept', name('A-Z_09', 'Com'), 'A-Z_09.Com'],
      ['C escapes and octal for control bytes', name(hex('0708090a0b0c0d1b'), 'com'), '\\a\\b\\t\\n\\v\\f\\r\\033.com'],
      ['NUL, DEL, space and backslash', name(hex('610062'), hex('787f79'), 'sp ace', 'back\\slash'), 'a\\000b.x\\177y.sp ace.back\\slash'],
      ['valid UTF-8 kept', name(hex('c3a974c3a9'), 'fr'), 'été.fr'],
      ['invalid bytes become U+FFFD, one per bad sequence', name(hex('fffe'), hex('e282'), hex('80'), hex('e2') + 'a'), '\ufffd\ufffd.\ufffd.\ufffd.\ufffda'],
      ['overlong forms decoded, surrogates and > U+10FFFF replaced', name(hex('c0af'), hex('eda080'), hex('f4908080'), 'x'), '/.\ufffd.\ufffd.x'],
      ['unprintable code points as \\u / \\U', name(hex('c280'), hex('efbbbf'), hex('e280ae'), hex('f3a08081'), 'x'), '\\u0080.\\uFEFF.\\u202E.\\U000E0001.x'],
      ['printable non-ASCII kept (NBSP, private use)', name(hex('c2a0'), hex('ee8080'), 'x'), '\u00a0.\ue000.x'],
    ];
    for (const [what, qname, expected] of cases) {
      it(what, () => {
        const r = parse(query(qname));
        expect(r.status).to.equal('dns_ok');
        expect(r.query).to.equal(expected);
      });
    }

    it('accepts a name of exactly 255 wire bytes and rejects 256 (tshark: <Name too long>)', () => {
      const a63 = 'a'.repeat(63);
      const ok = parse(query(name(a63, a63, a63, 'a'.repeat(61)))); // 3*64 + 62 + 1 = 255
      expect(ok.status).to.equal('dns_ok');
      expect(ok.query).to.have.length(253);
      expect(parse(query(name(a63, a63, a63, 'a'.repeat(62)))).status).to.equal('dns_bad_label'); // 256
      expect(parse(query(name(a63, a63, a63, a63))).status).to.equal('dns_bad_label');
    });

    it('cuts a display form longer than 255 bytes at a whole character and flags it', () => {
      const label = Buffer.alloc(63, 0x01); // each byte renders as \001 (4 bytes)
      const r = parse(query(name(label, label)));
      expect(r.status).to.equal('dns_ok');
      expect(r.queryTruncated).to.equal(true);
      expect(r.query).to.equal('\\001'.repeat(63));
      expect(r.query.length).to.equal(252);
    });
  });

  describe('compression', () => {
    it('follows pointers in answers and CNAME targets, and pointers to pointers', () => {
      // question at 12: www.example.com; answer 1 CNAME -> cdn.<pointer to "example.com" at 16>; answer 2 A for the
      // CNAME target whose owner is a pointer to a pointer.
      const q = question(name('www', 'example', 'com'));
      const cnameAt = 12 + q.length + 12; // owner pointer (2) + type/class/ttl/rdlength (10): rdata offset
      const msg = Buffer.concat([
        header({ qd: 1, an: 2 }),
        q,
        record(pointer(12), TYPE_CNAME, 300, Buffer.concat([Buffer.from([3]), Buffer.from('cdn'), pointer(16)])),
        record(pointer(cnameAt), TYPE_A, 60, hex('c0000201')),
      ]);
      const r = parse(msg);
      expect(r.status).to.equal('dns_ok');
      expect(r.answers).to.deep.equal([
        { type: TYPE_CNAME, ttl: 300, name: 'www.example.com', address: '', cname: 'cdn.example.com' },
        { type: TYPE_A, ttl: 60, name: 'cdn.example.com', address: '192.0.2.1', cname: '' },
      ]);
    });

    it('reports a pointer to itself as a loop', () => {
      expect(parse(query(pointer(12))).status).to.equal('dns_pointer_loop');
    });

    it('reports a loop through labels (abc -> pointer back to abc) as a loop', () => {
      const r = parse(query(Buffer.concat([Buffer.from([3]), Buffer.from('abc'), pointer(12)])));
      expect(r.status).to.equal('dns_pointer_loop');
      expect(r.query).to.equal('');
    });

    it('reports a two-pointer cycle in an answer owner as a loop', () => {
      // Answer 1 (type 16, skipped) carries two pointers to each other in its RDATA; answer 2's owner enters the cycle.
      const q = question(name('a'));
      const rdataAt = 12 + q.length + 2 + 10;
      const msg = Buffer.concat([
        header({ qd: 1, an: 2 }),
        q,
        record(pointer(12), 16, 1, Buffer.concat([pointer(rdataAt + 2), pointer(rdataAt)])),
        record(pointer(rdataAt), TYPE_A, 1, hex('01020304')),
      ]);
      expect(parse(msg).status).to.equal('dns_pointer_loop');
    });

    it('reports a pointer past the end of the message as truncated', () => {
      expect(parse(query(Buffer.concat([Buffer.from([3]), Buffer.from('abc'), pointer(0x3fff)]))).status).to.equal('dns_truncated');
    });

    it('rejects the 0x40 (extended) and 0x80 (reserved) label types', () => {
      expect(parse(query(Buffer.concat([Buffer.from([0x41]), Buffer.from('abc'), Buffer.from([0])]))).status).to.equal('dns_bad_label');
      expect(parse(query(Buffer.concat([Buffer.from([0x81]), Buffer.from('abc'), Buffer.from([0])]))).status).to.equal('dns_bad_label');
    });
  });

  describe('sections', () => {
    it('steps over other record types by RDLENGTH and skips A/AAAA records of the wrong length', () => {
      const msg = Buffer.concat([
        header({ qd: 1, an: 4 }),
        question(name('example', 'com'), TYPE_MX),
        record(pointer(12), TYPE_MX, 10, Buffer.concat([u16(10), name('mx', 'example', 'com')])),
        record(pointer(12), TYPE_A, 20, hex('0102')), // A with RDLENGTH 2: not an address
        record(pointer(12), TYPE_AAAA, 30, hex('20010db8000000000000000000000001')),
        record(pointer(12), TYPE_A, 0xffffffff, hex('c6336401')),
      ]);
      const r = parse(msg);
      expect(r.status).to.equal('dns_ok');
      expect(r.answerCount).to.equal(4);
      expect(r.answers).to.deep.equal([
        { type: TYPE_AAAA, ttl: 30, name: 'example.com', address: '2001:db8::1', cname: '' },
        { type: TYPE_A, ttl: 0xffffffff, name: 'example.com', address: '198.51.100.1', cname: '' },
      ]);
    });

    it('reads the first question only, and answers after several questions', () => {
      const msg = Buffer.concat([
        header({ qd: 2, an: 1 }),
        question(name('first', 'test'), TYPE_AAAA),
        question(Buffer.concat([Buffer.from([6]), Buffer.from('second'), pointer(18)])),
        record(pointer(12), TYPE_AAAA, 5, hex('fe800000000000000000000000000001')),
      ]);
      const r = parse(msg);
      expect(r).to.include({ status: 'dns_ok', query: 'first.test', qtype: TYPE_AAAA });
      expect(r.answers.map((a) => a.address)).to.deep.equal(['fe80::1']);
    });

    it("renders AAAA answers as glibc's inet_ntop does, IPv4-mapped ones as a dotted quad", () => {
      // Expected: Python's socket.inet_ntop (glibc) on the same 16 bytes; FormatAddress writes them without it.
      const cases: [string, string][] = [
        ['00000000000000000000000000000001', '::1'],
        ['00000000000000000000000000000000', '::'],
        ['20010db8000000010000000000000001', '2001:db8:0:1::1'],
        ['20010db8000000000001000000000000', '2001:db8:0:0:1::'], // the longer of two zero runs
        ['20010db80000000000010000000a0000', '2001:db8::1:0:a:0'], // the first of equal runs
        ['0000000000000000000000000a000001', '::10.0.0.1'], // IPv4-compatible
        ['000000000000000000000000000a0001', '::0.10.0.1'],
        ['000000000000000000000000ffff0001', '::255.255.0.1'],
        ['00000000000000000000ffff0a000001', '10.0.0.1'], // IPv4-mapped: the batch's dotted quad
        ['00000000000000000000fffe0a000001', '::fffe:a00:1'],
        ['000000000000000000010000c0000201', '::1:0:c000:201'],
        ['fe800000000000000000000000000000', 'fe80::'],
        ['00010000000000000000000000000000', '1::'],
        ['20010db8000100020003000400050006', '2001:db8:1:2:3:4:5:6'], // no zero word
        ['20010db80000000100020003000400ff', '2001:db8:0:1:2:3:4:ff'], // a single zero word is not shortened
        ['ffffffffffffffffffffffffffffffff', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
      ];
      // Eight answers are kept per message: two messages cover the cases.
      const addresses = (part: [string, string][]): string[] =>
        parse(
          Buffer.concat([
            header({ qd: 1, an: part.length }),
            question(name('v6', 'test'), TYPE_AAAA),
            ...part.map(([bytes]) => record(pointer(12), TYPE_AAAA, 1, hex(bytes))),
          ]),
        ).answers.map((a) => a.address);
      expect([...addresses(cases.slice(0, 8)), ...addresses(cases.slice(8))]).to.deep.equal(cases.map(([, text]) => text));
    });

    it('returns the answers of a message without a question (mDNS response) with dns_no_question', () => {
      const msg = Buffer.concat([header({ qd: 0, an: 1 }, 0x8400), record(name('printer', 'local'), TYPE_A, 120, hex('a9fe0102'), 0x8001)]);
      const r = parse(msg);
      expect(r.status).to.equal('dns_no_question');
      expect(r.query).to.equal('');
      expect(r.answers).to.deep.equal([{ type: TYPE_A, ttl: 120, name: 'printer.local', address: '169.254.1.2', cname: '' }]);
      expect(r.looksLikeDns).to.equal(true);
    });

    it('keeps no question whose type or class is cut (as tshark shows none)', () => {
      const full = query(name('abc', 'com'));
      for (const cut of [1, 2, 4]) {
        const r = parse(full.subarray(0, full.length - cut));
        expect(r).to.include({ status: 'dns_truncated', query: '', qtype: 0 });
      }
    });
  });

  describe('truncation at every byte', () => {
    const payloads = [...REAL.map((v) => hex(v.hex)), query(name('www', 'example', 'com'))];
    it('returns a status for every prefix of every payload, never more answers than the whole', () => {
      for (const p of payloads) {
        const whole = parse(p);
        for (let n = 0; n < p.length; n++) {
          const r = parse(p.subarray(0, n));
          expect(STATUSES).to.include(r.status);
          expect(r.answers.length).to.be.at.most(whole.answers.length);
          if (n < 12) expect(r.status).to.equal('dns_truncated');
          // A prefix that ends inside the first question never names it.
          if (r.status === 'dns_truncated' && r.query !== '') expect(whole.query.startsWith(r.query)).to.equal(true);
        }
      }
    });
  });
});

describe('LooksLikeDns() (native/app/dns.cpp)', () => {
  const looks = (b: Buffer): boolean => parse(b).looksLikeDns;
  it('accepts queries and responses', () => {
    expect(looks(query(name('example', 'com')))).to.equal(true);
    expect(looks(Buffer.concat([header({ qd: 1, an: 1 }), question(name('a')), record(pointer(12), TYPE_A, 1, hex('01020304'))]))).to.equal(true);
  });
  it('rejects other protocols and implausible headers', () => {
    expect(looks(Buffer.from('GET / HTTP/1.1\r\nHost: example.com\r\n\r\n'))).to.equal(false);
    expect(looks(hex('16030100f4010000f00303'))).to.equal(false); // TLS ClientHello start
    expect(looks(hex('1234010000010000000000'))).to.equal(false); // 11 bytes
    expect(looks(Buffer.concat([header({ qd: 0 }, 0x0100), Buffer.alloc(20)]))).to.equal(false); // a query with no question
    expect(looks(Buffer.concat([header({ qd: 1 }, 0x0100 | (3 << 11)), question(name('a'))]))).to.equal(false); // opcode 3
    expect(looks(Buffer.concat([header({ qd: 1 }, 0x0103), question(name('a'))]))).to.equal(false); // query with rcode
    expect(looks(Buffer.concat([header({ qd: 1, an: 50 }), question(name('a'))]))).to.equal(false); // counts exceed the length
    expect(looks(Buffer.concat([header({ qd: 1 }, 0x0100), Buffer.from([0x41]), question(name('a'))]))).to.equal(false); // label 0x41
  });
});
