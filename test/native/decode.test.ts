/**
 * Decoder unit tests: hand-built frames (hex, one comment per field) through the real C++ DecodePacket via the
 * test-only `_decodePacket` export. One shared behaviour suite (truncation at every byte, padding, bogus wire
 * length) is applied to a sample of every link type and L3/L4 decoder.
 */
import { expect } from 'chai';

import type { Binding } from '../../binding.js';
import { loadBinding } from '../../src/native/load.js';

const addon = loadBinding();
const decode = (linkType: number, frame: Uint8Array, wirelen?: number): Binding.DecodedPacket => addon._decodePacket(linkType, frame, wirelen);

// DLT / LINKTYPE numbers.
const DLT_NULL = 0;
const DLT_EN10MB = 1;
const DLT_RAW = 12; // what libpcap reports for LINKTYPE_RAW on Linux
const DLT_RAW_OPENBSD = 14;
const LINKTYPE_RAW = 101;
const DLT_LOOP = 108;
const DLT_LINUX_SLL = 113;
const DLT_IPV4 = 228;
const DLT_IPV6 = 229;
const DLT_LINUX_SLL2 = 276;
const DLT_IEEE802_11 = 105;

const TCP_FIN = 0x01;
const TCP_SYN = 0x02;
const TCP_PSH = 0x08;
const TCP_ACK = 0x10;

/** Concatenates hex fields (whitespace ignored) and already-built layers into one frame. */
function frame(...fields: (string | string[] | Buffer)[]): Buffer {
  return Buffer.concat(fields.map((f) => (Buffer.isBuffer(f) ? f : Buffer.from([f].flat().join('').replace(/\s+/g, ''), 'hex'))));
}
const hex8 = (n: number): string => n.toString(16).padStart(2, '0');
const hex16 = (n: number): string => n.toString(16).padStart(4, '0');
const hex32 = (n: number): string => n.toString(16).padStart(8, '0');
const zeros = (n: number): string => '00'.repeat(n);

// ---- L2 ----
function ethernet(ethertype: number): string[] {
  return [
    '00 11 22 33 44 55', // destination MAC
    '66 77 88 99 aa bb', // source MAC
    hex16(ethertype), //    ethertype (or 802.3 length)
  ];
}
function vlanTag(vid: number, next: number, pcp = 0): string[] {
  return [
    hex16((pcp << 13) | vid), // TCI: PCP (3 bits) | DEI | VLAN id (12 bits)
    hex16(next), //              encapsulated ethertype
  ];
}

// ---- L3 ----
interface Ipv4Fields {
  totalLength: number;
  protocol: number;
  ihl?: number;
  id?: number;
  flagsOffset?: number;
  ttl?: number;
  options?: string[];
}
function ipv4(f: Ipv4Fields): string[] {
  return [
    hex8(0x40 | (f.ihl ?? 5)), //     version 4 | IHL (32-bit words)
    '00', //                         DSCP / ECN
    hex16(f.totalLength), //         total length (bytes)
    hex16(f.id ?? 0xabcd), //        identification
    hex16(f.flagsOffset ?? 0x4000), // flags (0x4000 DF, 0x2000 MF) | fragment offset (8-byte units)
    hex8(f.ttl ?? 64), //            TTL
    hex8(f.protocol), //             protocol
    '00 00', //                      header checksum (not verified)
    'c0 a8 00 01', //                source 192.168.0.1
    'c0 a8 00 02', //                destination 192.168.0.2
    ...(f.options ?? []),
  ];
}
function ipv6(payloadLength: number, nextHeader: number, hopLimit = 64): string[] {
  return [
    '60 00 00 00', //                                      version 6 | traffic class | flow label
    hex16(payloadLength), //                               payload length (bytes after this header)
    hex8(nextHeader), //                                   next header
    hex8(hopLimit), //                                     hop limit
    '20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 01', //  source 2001:db8::1
    '20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 02', //  destination 2001:db8::2
  ];
}
function ipv6Fragment(next: number, offsetUnits: number, more: boolean, id: number): string[] {
  return [
    hex8(next), //                                  next header
    '00', //                                        reserved
    hex16((offsetUnits << 3) | (more ? 1 : 0)), //  fragment offset (8-byte units) | M flag
    hex32(id), //                                   identification
  ];
}

// ---- L4 ----
function tcp(flags: number, dataOffset = 5, options: string[] = []): string[] {
  return [
    '30 39', //                  source port 12345
    '00 50', //                  destination port 80
    '00 00 00 01', //            sequence number
    '00 00 00 00', //            acknowledgement number
    hex8(dataOffset << 4), //    data offset (32-bit words) | reserved
    hex8(flags), //              flags
    '72 10', //                  window 29200
    '00 00', //                  checksum (not verified)
    '00 00', //                  urgent pointer
    ...options,
  ];
}
function udp(length: number): string[] {
  return [
    '00 35', //        source port 53
    '9c 40', //        destination port 40000
    hex16(length), //  length (header + data)
    '00 00', //        checksum (none)
  ];
}
function icmpEcho(type: number): string[] {
  return [
    hex8(type), //  type (8 echo request; 128 ICMPv6 echo request)
    '00', //        code
    '00 00', //     checksum
    '00 01', //     identifier
    '00 07', //     sequence number
  ];
}
const PAYLOAD4 = 'de ad be ef'; // 4 bytes of application data

/** A valid frame and where its layers end, for the shared behaviour suite. */
interface Sample {
  name: string;
  linkType: number;
  bytes: Buffer;
  /** Link-layer bytes (incl. VLAN tags). */
  l2: number;
  /** IP header bytes incl. options / extension headers. */
  l3: number;
  /** L4 bytes the decoder needs (TCP data offset * 4, UDP 8, ICMP 4). */
  l4: number;
  expected: Partial<Binding.DecodedPacket>;
}

const ETH_IPV4_TCP_SYN = frame(ethernet(0x0800), ipv4({ totalLength: 40, protocol: 6 }), tcp(TCP_SYN));
const IPV4_UDP = frame(ipv4({ totalLength: 32, protocol: 17, flagsOffset: 0 }), udp(12), PAYLOAD4);
const IPV6_UDP = frame(ipv6(12, 17), udp(12), PAYLOAD4);

const samples: Sample[] = [
  {
    name: 'Ethernet / IPv4 / TCP SYN',
    linkType: DLT_EN10MB,
    bytes: ETH_IPV4_TCP_SYN,
    l2: 14,
    l3: 20,
    l4: 20,
    expected: { ipVersion: 4, src: '192.168.0.1', dst: '192.168.0.2', protocol: 6, srcPort: 12345, dstPort: 80, tcpFlags: TCP_SYN, ipBytes: 40 },
  },
  {
    name: 'Ethernet / 802.1ad + 802.1Q / IPv6 / UDP',
    linkType: DLT_EN10MB,
    bytes: frame(ethernet(0x88a8), vlanTag(10, 0x8100), vlanTag(20, 0x86dd), IPV6_UDP),
    l2: 22,
    l3: 40,
    l4: 8,
    expected: { ipVersion: 6, vlan: [10, 20], vlanDepth: 2, protocol: 17, srcPort: 53, dstPort: 40000, ipBytes: 52 },
  },
  {
    name: 'Linux cooked v1 / IPv4 / TCP with MSS option',
    linkType: DLT_LINUX_SLL,
    bytes: frame(
      '00 00', //                    packet type: to us
      '00 01', //                    ARPHRD_ETHER
      '00 06', //                    address length
      '00 11 22 33 44 55 00 00', //  source address (8 bytes, 6 used)
      '08 00', //                    protocol IPv4
      ipv4({ totalLength: 44, protocol: 6 }),
      tcp(TCP_SYN, 6, ['02 04 05 b4' /* MSS 1460 */]),
    ),
    l2: 16,
    l3: 20,
    l4: 24,
    expected: { ipVersion: 4, protocol: 6, l4HeaderBytes: 24, ipBytes: 44, payloadBytes: 0 },
  },
  {
    name: 'Linux cooked v2 / IPv6 / UDP',
    linkType: DLT_LINUX_SLL2,
    bytes: frame(
      '86 dd', //                    protocol IPv6
      '00 00', //                    reserved
      '00 00 00 02', //              interface index 2
      '00 01', //                    ARPHRD_ETHER
      '04', //                       packet type: outgoing
      '06', //                       address length
      '00 11 22 33 44 55 00 00', //  source address
      IPV6_UDP,
    ),
    l2: 20,
    l3: 40,
    l4: 8,
    expected: { ipVersion: 6, src: '2001:db8::1', dst: '2001:db8::2', protocol: 17, payloadBytes: 4 },
  },
  {
    name: 'BSD NULL (little-endian AF_INET) / IPv4 / UDP',
    linkType: DLT_NULL,
    bytes: frame('02 00 00 00' /* AF_INET = 2, little-endian writer */, IPV4_UDP),
    l2: 4,
    l3: 20,
    l4: 8,
    expected: { ipVersion: 4, protocol: 17, ipBytes: 32 },
  },
  {
    name: 'raw IP (LINKTYPE_RAW) / IPv4 / ICMP echo',
    linkType: LINKTYPE_RAW,
    bytes: frame(ipv4({ totalLength: 32, protocol: 1 }), icmpEcho(8), PAYLOAD4),
    l2: 0,
    l3: 20,
    l4: 4,
    expected: { ipVersion: 4, protocol: 1, srcPort: 8, dstPort: 0, l4HeaderBytes: 8, payloadBytes: 4 },
  },
  {
    name: 'DLT_IPV6 / IPv6 hop-by-hop + fragment(first) / UDP',
    linkType: DLT_IPV6,
    bytes: frame(
      ipv6(8 + 8 + 8 + 4, 0),
      '2c', //                 hop-by-hop: next header 44 (fragment)
      '00', //                 header extension length 0 (8 bytes)
      '05 02 00 00', //        option router alert (type 5, length 2, value 0)
      '01 00', //              option PadN (2 bytes of padding)
      ipv6Fragment(17, 0, true, 0x12345678),
      udp(3000), //            UDP length covers the whole datagram, not this fragment
      PAYLOAD4,
    ),
    l2: 0,
    l3: 56,
    l4: 8,
    expected: { ipVersion: 6, protocol: 17, isFragment: true, isFirstFragment: true, fragId: 0x12345678, srcPort: 53, l3HeaderBytes: 56 },
  },
  {
    name: 'Ethernet / IPv6 destination options with hidden data / ICMPv6 echo',
    linkType: DLT_EN10MB,
    bytes: frame(
      ethernet(0x86dd),
      ipv6(16 + 8, 60),
      '3a', //                 destination options: next header 58 (ICMPv6)
      '01', //                 header extension length 1 (16 bytes)
      '1e 06 73 65 63 72 65 74', // option type 0x1e (experimental, RFC 4727), 6 bytes of data: "secret"
      '01 04 41 42 00 00', //  option PadN, 4 bytes of padding that are not zero
      icmpEcho(128),
    ),
    l2: 14,
    l3: 56,
    l4: 4,
    expected: { ipVersion: 6, protocol: 58, srcPort: 128, ipv6OptionHeaders: 1, ipv6Anomalies: 0b1001, ipv6CovertBytes: 10 },
  },
  {
    name: 'DLT_LOOP / IPv6 / TCP ACK',
    linkType: DLT_LOOP,
    bytes: frame('00 00 00 1e' /* AF_INET6 30, network order */, ipv6(20, 6), tcp(TCP_ACK)),
    l2: 4,
    l3: 40,
    l4: 20,
    expected: { ipVersion: 6, protocol: 6, tcpFlags: TCP_ACK, ipBytes: 60 },
  },
  {
    name: 'Ethernet / 802.1Q / IPv4 with options / UDP',
    linkType: DLT_EN10MB,
    bytes: frame(
      ethernet(0x8100),
      vlanTag(42, 0x0800),
      ipv4({ totalLength: 40, protocol: 17, ihl: 7, options: ['07 07 04 00 00 00 00' /* record route */, '00' /* EOL */] }),
      udp(12),
      PAYLOAD4,
    ),
    l2: 18,
    l3: 28,
    l4: 8,
    expected: { ipVersion: 4, protocol: 17, vlan: [42], l3HeaderBytes: 28, payloadBytes: 4 },
  },
  {
    name: 'DLT_IPV4 / IPv4 later fragment (no L4 header)',
    linkType: DLT_IPV4,
    bytes: frame(ipv4({ totalLength: 36, protocol: 6, flagsOffset: 0x00b9 /* offset 1480 */ }), zeros(16)),
    l2: 0,
    l3: 20,
    l4: 0,
    expected: { ipVersion: 4, protocol: 6, isFragment: true, hasPorts: false, payloadBytes: 16 },
  },
];

/** The expected status when `sample` is cut to `caplen` bytes (its wire length unchanged). */
function statusWhenCut(s: Sample, caplen: number): string {
  if (caplen < s.l2) return 'truncated_l2';
  if (caplen < s.l2 + s.l3) return 'truncated_ip';
  if (caplen < s.l2 + s.l3 + s.l4) return 'truncated_l4';
  return 'ok';
}

describe('DecodePacket() shared behaviour', () => {
  for (const s of samples) {
    describe(s.name, () => {
      it('decodes the whole frame', () => {
        const v = decode(s.linkType, s.bytes);
        expect(v.status).to.equal('ok');
        expect(v).to.include(Object.fromEntries(Object.entries(s.expected).filter(([, x]) => !Array.isArray(x))));
        if (s.expected.vlan) expect(v.vlan).to.deep.equal(s.expected.vlan);
        expect(v.l3HeaderBytes).to.equal(s.l3);
        expect(v.caplen).to.equal(s.bytes.length);
        expect(v.ipBytes).to.equal(s.bytes.length - s.l2);
      });

      it('reports the layer where a snap length cut it, at every byte offset', () => {
        const whole = decode(s.linkType, s.bytes);
        for (let caplen = 0; caplen < s.bytes.length; caplen++) {
          const v = decode(s.linkType, s.bytes.subarray(0, caplen), s.bytes.length);
          expect(v.status, `cut at ${caplen}`).to.equal(statusWhenCut(s, caplen));
          expect(v.caplen).to.equal(caplen);
          if (v.status === 'ok') {
            // Headers present: byte counts still come from the length fields.
            expect(v.ipBytes, `cut at ${caplen}`).to.equal(whole.ipBytes);
            expect(v.payloadBytes, `cut at ${caplen}`).to.equal(whole.payloadBytes);
          }
        }
      });

      it('ignores trailing padding after the IP packet', () => {
        const padded = Buffer.concat([s.bytes, Buffer.alloc(18, 0xee)]);
        const v = decode(s.linkType, padded);
        expect(v.status).to.equal('ok');
        expect(v.ipBytes).to.equal(s.bytes.length - s.l2);
        expect(v.payloadBytes).to.equal(decode(s.linkType, s.bytes).payloadBytes);
      });

      it('rejects an IP length larger than the frame was on the wire', () => {
        // Same bytes minus the last one, and a wire length that agrees: the IP length field now overstates.
        const short = s.bytes.subarray(0, s.bytes.length - 1);
        expect(decode(s.linkType, short, short.length).status).to.equal('bad_ip_total_length');
      });

      it('survives a wire length below the captured length', () => {
        expect(decode(s.linkType, s.bytes, 1).status).to.equal('ok');
      });
    });
  }
});

describe('DecodePacket() under random corruption', () => {
  const STATUSES = new Set([
    'ok',
    'unsupported_link_type',
    'truncated_l2',
    'non_ip',
    'truncated_ip',
    'bad_ip_version',
    'bad_ip_header_length',
    'bad_ip_total_length',
    'bad_ipv6_ext_header',
    'truncated_l4',
    'bad_tcp_header_length',
    'bad_udp_length',
  ]);
  // Deterministic xorshift32, so a failure reproduces.
  let state = 0x9e3779b9;
  const rand = (n: number): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };

  for (const s of samples) {
    it(`${s.name}: 500 corrupted copies decode to a known status with consistent byte accounting`, () => {
      for (let i = 0; i < 500; i++) {
        const bytes = Buffer.from(s.bytes);
        for (let flips = 1 + rand(4); flips > 0; flips--) bytes[rand(bytes.length)] = rand(256);
        const caplen = rand(4) === 0 ? rand(bytes.length + 1) : bytes.length;
        const wirelen = bytes.length + (rand(2) === 0 ? 0 : rand(2000));
        const v = decode(s.linkType, bytes.subarray(0, caplen), wirelen);
        expect(STATUSES.has(v.status), v.status).to.equal(true);
        if (v.status === 'ok') {
          expect(v.l3HeaderBytes + v.l4HeaderBytes + v.payloadBytes, `mutation ${i}`).to.equal(v.ipBytes);
          expect(v.ipBytes).to.be.at.most(wirelen);
          if (v.isFragment && !v.isFirstFragment) expect(v.hasPorts).to.equal(false);
        }
      }
    });
  }
});

describe('DecodePacket() link types', () => {
  it('Ethernet: TCP SYN with every field', () => {
    expect(decode(DLT_EN10MB, ETH_IPV4_TCP_SYN)).to.deep.equal({
      status: 'ok',
      vlan: [],
      vlanDepth: 0,
      ipVersion: 4,
      src: '192.168.0.1',
      dst: '192.168.0.2',
      protocol: 6,
      ttl: 64,
      ipBytes: 40,
      l3HeaderBytes: 20,
      ipv6OptionHeaders: 0,
      ipv6Anomalies: 0,
      ipv6CovertBytes: 0,
      isFragment: false,
      isFirstFragment: false,
      fragId: 0xabcd,
      hasPorts: true,
      srcPort: 12345,
      dstPort: 80,
      tcpFlags: TCP_SYN,
      tcpWindow: 29200,
      l4HeaderBytes: 20,
      payloadBytes: 0,
      caplen: 54,
      wirelen: 54,
    });
  });

  it('Ethernet: minimum-size frame padding is not counted', () => {
    const v = decode(DLT_EN10MB, frame(ethernet(0x0800), IPV4_UDP, zeros(14) /* padding to 60 bytes */));
    expect(v).to.include({ status: 'ok', caplen: 60, ipBytes: 32, payloadBytes: 4, l4HeaderBytes: 8 });
  });

  it('Ethernet: one 802.1Q tag', () => {
    const v = decode(DLT_EN10MB, frame(ethernet(0x8100), vlanTag(42, 0x0800, 5), ipv4({ totalLength: 40, protocol: 6 }), tcp(TCP_ACK)));
    expect(v.status).to.equal('ok');
    expect(v.vlan).to.deep.equal([42]);
    expect(v.vlanDepth).to.equal(1);
    expect(v.dstPort).to.equal(80);
  });

  it('Ethernet: three stacked tags (0x9100, 0x8100, 0x8100) keep the outer two and count all', () => {
    const v = decode(
      DLT_EN10MB,
      frame(ethernet(0x9100), vlanTag(100, 0x8100), vlanTag(200, 0x8100), vlanTag(300, 0x0800), ipv4({ totalLength: 40, protocol: 6 }), tcp(TCP_SYN)),
    );
    expect(v.status).to.equal('ok');
    expect(v.vlan).to.deep.equal([100, 200]);
    expect(v.vlanDepth).to.equal(3);
    expect(v.ipBytes).to.equal(40);
  });

  it('Ethernet: priority-tagged QinQ with VLAN id 0 on both tags', () => {
    const v = decode(DLT_EN10MB, frame(ethernet(0x8100), vlanTag(0, 0x8100, 3), vlanTag(0, 0x0800), ipv4({ totalLength: 40, protocol: 6 }), tcp(TCP_SYN)));
    expect(v).to.include({ status: 'ok', vlanDepth: 2 });
    expect(v.vlan).to.deep.equal([0, 0]);
  });

  it('Ethernet: ARP is non-IP', () => {
    const arp = frame(
      ethernet(0x0806),
      '00 01', //              hardware type Ethernet
      '08 00', //              protocol type IPv4
      '06', //                 hardware size
      '04', //                 protocol size
      '00 01', //              opcode request
      '66 77 88 99 aa bb', //  sender MAC
      'c0 a8 00 01', //        sender IP
      zeros(6), //             target MAC
      'c0 a8 00 02', //        target IP
    );
    expect(decode(DLT_EN10MB, arp)).to.include({ status: 'non_ip', ipVersion: 0, src: '' });
  });

  it('Ethernet: 802.3 + LLC (spanning tree) is non-IP; 802.3 + LLC/SNAP carrying IPv4 is decoded', () => {
    const stp = frame(
      ethernet(38), //  802.3 length 38
      '42', //          DSAP spanning tree
      '42', //          SSAP spanning tree
      '03', //          control UI
      zeros(35), //     BPDU
    );
    expect(decode(DLT_EN10MB, stp).status).to.equal('non_ip');
    const snap = frame(
      ethernet(8 + 40), //  802.3 length
      'aa', //              DSAP SNAP
      'aa', //              SSAP SNAP
      '03', //              control UI
      '00 00 00', //        OUI encapsulated Ethernet
      '08 00', //           ethertype IPv4
      ipv4({ totalLength: 40, protocol: 6 }),
      tcp(TCP_SYN),
    );
    expect(decode(DLT_EN10MB, snap)).to.include({ status: 'ok', dstPort: 80, ipBytes: 40 });
  });

  it('Ethernet: IPv4 ethertype carrying an IPv6 header is a bad version', () => {
    expect(decode(DLT_EN10MB, frame(ethernet(0x0800), IPV6_UDP)).status).to.equal('bad_ip_version');
  });

  it('Linux cooked v1: non-IP protocol values and netlink are non-IP', () => {
    const llc = frame('00 00', '00 01', '00 06', zeros(8), '00 04' /* protocol 0x0004: 802.2 LLC */, zeros(20));
    expect(decode(DLT_LINUX_SLL, llc).status).to.equal('non_ip');
    const netlink = frame('00 04', '03 38' /* ARPHRD_NETLINK 824 */, '00 00', zeros(8), '08 00', IPV4_UDP);
    expect(decode(DLT_LINUX_SLL, netlink).status).to.equal('non_ip');
  });

  it('Linux cooked v1: a VLAN tag after the protocol field', () => {
    const v = decode(DLT_LINUX_SLL, frame('00 00', '00 01', '00 06', zeros(8), '81 00' /* protocol 802.1Q */, vlanTag(7, 0x86dd), IPV6_UDP));
    expect(v).to.include({ status: 'ok', vlanDepth: 1, ipVersion: 6 });
    expect(v.vlan).to.deep.equal([7]);
  });

  it('BSD NULL: AF_INET from a big-endian writer and the IPv6 families of each OS', () => {
    expect(decode(DLT_NULL, frame('00 00 00 02' /* AF_INET, big-endian writer */, IPV4_UDP))).to.include({ status: 'ok', ipVersion: 4 });
    for (const af of [10, 23, 24, 28, 30]) {
      const v = decode(DLT_NULL, frame(hex8(af), '00 00 00' /* AF_INET6 (Linux, Windows, BSDs, macOS), little-endian */, IPV6_UDP));
      expect(v, `AF ${af}`).to.include({ status: 'ok', ipVersion: 6, dstPort: 40000 });
    }
    expect(decode(DLT_NULL, frame('07 00 00 00' /* AF 7: not IP */, IPV4_UDP)).status).to.equal('non_ip');
  });

  it('DLT_LOOP: family in network byte order', () => {
    expect(decode(DLT_LOOP, frame('00 00 00 02' /* AF_INET, network order */, IPV4_UDP))).to.include({ status: 'ok', ipVersion: 4 });
    expect(decode(DLT_LOOP, frame('00 00 00 18' /* AF_INET6 24 */, IPV6_UDP))).to.include({ status: 'ok', ipVersion: 6 });
  });

  it('raw IP: every raw link type number picks IPv4/IPv6 from the version nibble', () => {
    for (const dlt of [DLT_RAW, DLT_RAW_OPENBSD, LINKTYPE_RAW]) {
      expect(decode(dlt, IPV4_UDP), `DLT ${dlt} v4`).to.include({ status: 'ok', ipVersion: 4 });
      expect(decode(dlt, IPV6_UDP), `DLT ${dlt} v6`).to.include({ status: 'ok', ipVersion: 6 });
    }
    expect(decode(LINKTYPE_RAW, frame('50' /* version 5 */, zeros(39))).status).to.equal('bad_ip_version');
    expect(decode(LINKTYPE_RAW, Buffer.alloc(0)).status).to.equal('truncated_ip');
  });

  it('DLT_IPV4 / DLT_IPV6 insist on their version', () => {
    expect(decode(DLT_IPV4, IPV4_UDP).status).to.equal('ok');
    expect(decode(DLT_IPV4, IPV6_UDP).status).to.equal('bad_ip_version');
    expect(decode(DLT_IPV6, IPV6_UDP).status).to.equal('ok');
    expect(decode(DLT_IPV6, IPV4_UDP).status).to.equal('bad_ip_version');
  });

  it('unknown link types are unsupported, not fatal', () => {
    expect(decode(DLT_IEEE802_11, ETH_IPV4_TCP_SYN).status).to.equal('unsupported_link_type');
    expect(decode(-1, ETH_IPV4_TCP_SYN).status).to.equal('unsupported_link_type');
  });
});

describe('DecodePacket() IPv4', () => {
  it('skips options (IHL 6) and reports the header length', () => {
    const v = decode(LINKTYPE_RAW, frame(ipv4({ totalLength: 44, protocol: 6, ihl: 6, options: ['94 04 00 00' /* router alert */] }), tcp(TCP_SYN)));
    expect(v).to.include({ status: 'ok', l3HeaderBytes: 24, srcPort: 12345, dstPort: 80, ipBytes: 44, payloadBytes: 0 });
  });

  it('options cut by the snap length are a truncated IP header', () => {
    const full = frame(ipv4({ totalLength: 60, protocol: 6, ihl: 10, options: ['01 01 01 01', zeros(16)] }), tcp(TCP_SYN));
    expect(decode(LINKTYPE_RAW, full).status).to.equal('ok');
    expect(decode(LINKTYPE_RAW, full.subarray(0, 30), full.length).status).to.equal('truncated_ip');
  });

  it('IHL below 5 or above the total length is a bad header length', () => {
    expect(decode(LINKTYPE_RAW, frame(ipv4({ totalLength: 40, protocol: 6, ihl: 4 }), tcp(TCP_SYN))).status).to.equal('bad_ip_header_length');
    expect(decode(LINKTYPE_RAW, frame(ipv4({ totalLength: 20, protocol: 6, ihl: 6, options: ['00 00 00 00'] }), tcp(TCP_SYN))).status).to.equal(
      'bad_ip_header_length',
    );
  });

  it('a total length too small for the transport header is a bad total length; addresses are still filled', () => {
    const v = decode(LINKTYPE_RAW, frame(ipv4({ totalLength: 30, protocol: 6 }), tcp(TCP_SYN)));
    expect(v).to.include({ status: 'bad_ip_total_length', src: '192.168.0.1', hasPorts: false });
  });

  it('snap length truncation: headers present decode ok, byte counts from the length fields', () => {
    const full = frame(ethernet(0x0800), ipv4({ totalLength: 1500, protocol: 6 }), tcp(TCP_ACK | TCP_PSH));
    const v = decode(DLT_EN10MB, full, 1514);
    expect(v).to.include({ status: 'ok', caplen: 54, wirelen: 1514, ipBytes: 1500, payloadBytes: 1460, tcpFlags: TCP_ACK | TCP_PSH });
    // The same frame whose wire length says it really was 54 bytes: the IP length is bogus.
    expect(decode(DLT_EN10MB, full, 54).status).to.equal('bad_ip_total_length');
  });

  it('TSO / BIG TCP: total length 0 on TCP means the frame length', () => {
    const tso = frame(ethernet(0x0800), ipv4({ totalLength: 0, protocol: 6 }), tcp(TCP_ACK), zeros(100));
    expect(decode(DLT_EN10MB, tso)).to.include({ status: 'ok', ipBytes: 140, payloadBytes: 100 });
    // A snap-length-cut TSO frame still counts what was on the wire.
    expect(decode(DLT_EN10MB, tso.subarray(0, 54), 30014)).to.include({ status: 'ok', ipBytes: 30000, payloadBytes: 29960 });
  });

  it('total length 0 on any protocol means the frame length (as Wireshark reads it)', () => {
    const icmp = frame(ethernet(0x0800), ipv4({ totalLength: 0, protocol: 1, ttl: 0 }), icmpEcho(8), zeros(18));
    expect(decode(DLT_EN10MB, icmp)).to.include({ status: 'ok', ttl: 0, protocol: 1, srcPort: 8, ipBytes: 46, payloadBytes: 18 });
    const gre = frame(ipv4({ totalLength: 0, protocol: 47 }), '00 00' /* GRE flags/version */, '08 00' /* protocol type */, zeros(4));
    expect(decode(LINKTYPE_RAW, gre)).to.include({ status: 'ok', protocol: 47, hasPorts: false, ipBytes: 28, payloadBytes: 8 });
    // Still bogus when the frame was shorter on the wire than the header itself (IHL 6: 24 bytes, 20 on the wire).
    const short = frame(ipv4({ totalLength: 0, protocol: 1, ihl: 6, options: ['01 01 01 01'] })).subarray(0, 20);
    expect(decode(LINKTYPE_RAW, short, 20).status).to.equal('bad_ip_total_length');
  });

  it('UDP GSO super-packet: total length 0 and UDP length 0 reach the end of the frame', () => {
    const gso = frame(
      ethernet(0x0800),
      ipv4({ totalLength: 0, protocol: 17 }),
      udp(0), //  length 0: the stack has not split the super-packet yet
      '08 00 00 00 00 00 2a 00', // VXLAN header (flags I, VNI 42), unparsed
      zeros(92),
    );
    expect(decode(DLT_EN10MB, gso)).to.include({ status: 'ok', srcPort: 53, dstPort: 40000, ipBytes: 128, payloadBytes: 100 });
    // A snap-length-cut super-packet larger than 64 KiB still counts what was on the wire.
    expect(decode(DLT_EN10MB, gso.subarray(0, 42), 90014)).to.include({ status: 'ok', ipBytes: 90000, payloadBytes: 89972 });
    // UDP length 0 is only "see the IP length" when the IP length itself was 0.
    expect(decode(DLT_EN10MB, frame(ethernet(0x0800), ipv4({ totalLength: 128, protocol: 17 }), udp(0), zeros(100))).status).to.equal('bad_udp_length');
  });

  it('first fragment carries the ports (the UDP length covers the whole datagram)', () => {
    const v = decode(LINKTYPE_RAW, frame(ipv4({ totalLength: 44, protocol: 17, flagsOffset: 0x2000, id: 0x1c46 }), udp(3000), zeros(16)));
    expect(v).to.include({ status: 'ok', isFragment: true, isFirstFragment: true, fragId: 0x1c46, hasPorts: true, srcPort: 53, payloadBytes: 16 });
  });

  it('later fragments have addresses and fragment id but no ports', () => {
    for (const flagsOffset of [0x0003 /* last: offset 24 */, 0x2003 /* middle: MF, offset 24 */]) {
      const v = decode(LINKTYPE_RAW, frame(ipv4({ totalLength: 36, protocol: 17, flagsOffset, id: 0x1c46 }), zeros(16)));
      expect(v, `flags/offset ${flagsOffset}`).to.include({
        status: 'ok',
        isFragment: true,
        isFirstFragment: false,
        fragId: 0x1c46,
        hasPorts: false,
        protocol: 17,
        src: '192.168.0.1',
        dst: '192.168.0.2',
        ipBytes: 36,
        payloadBytes: 16,
      });
    }
  });

  it('DF alone is not a fragment', () => {
    expect(decode(DLT_EN10MB, ETH_IPV4_TCP_SYN)).to.include({ isFragment: false, isFirstFragment: false });
  });

  it('ICMP: type and code in place of the ports', () => {
    const unreachable = frame(ipv4({ totalLength: 56, protocol: 1 }), '03' /* type 3 dest unreachable */, '03' /* code 3 port */, '00 00', zeros(4), zeros(28));
    expect(decode(LINKTYPE_RAW, unreachable)).to.include({ status: 'ok', hasPorts: true, srcPort: 3, dstPort: 3, l4HeaderBytes: 8, payloadBytes: 28 });
  });

  it('other IP protocols are port-less', () => {
    const gre = frame(ipv4({ totalLength: 28, protocol: 47 }), '00 00' /* GRE flags/version */, '08 00' /* protocol type */, zeros(4));
    expect(decode(LINKTYPE_RAW, gre)).to.include({ status: 'ok', protocol: 47, hasPorts: false, payloadBytes: 8 });
  });
});

describe('DecodePacket() IPv6', () => {
  it('walks hop-by-hop, destination options, routing, atomic fragment and AH to TCP', () => {
    const v = decode(
      DLT_IPV6,
      frame(
        ipv6(56 + 20, 0),
        '3c', //                      hop-by-hop: next header 60 (destination options)
        '00', //                      length 0 (8 bytes)
        '01 04 00 00 00 00', //       PadN option, 4 bytes
        '2b', //                      destination options: next header 43 (routing)
        '00', //                      length 0 (8 bytes)
        '01 04 00 00 00 00', //       PadN option
        '2c', //                      routing: next header 44 (fragment)
        '00', //                      length 0 (8 bytes)
        '04', //                      routing type 4 (segment routing)
        '00', //                      segments left 0
        '00 00 00 00', //             type-specific data
        ipv6Fragment(51, 0, false, 0xdeadbeef), // atomic fragment (offset 0, M=0): not a fragment
        '06', //                      AH: next header 6 (TCP)
        '04', //                      payload length 4 -> (4 + 2) * 4 = 24 bytes
        '00 00', //                   reserved
        '00 00 10 01', //             SPI
        '00 00 00 01', //             sequence number
        zeros(12), //                 ICV
        tcp(TCP_SYN),
      ),
    );
    expect(v).to.include({ status: 'ok', protocol: 6, l3HeaderBytes: 96, ipBytes: 116, isFragment: false, srcPort: 12345, dstPort: 80, ttl: 64 });
  });

  it('later fragment: protocol from the fragment header, 32-bit id, no ports', () => {
    const v = decode(DLT_IPV6, frame(ipv6(8 + 16, 44), ipv6Fragment(17, 3, false, 0x12345678), zeros(16)));
    expect(v).to.include({
      status: 'ok',
      isFragment: true,
      isFirstFragment: false,
      fragId: 0x12345678,
      protocol: 17,
      hasPorts: false,
      l3HeaderBytes: 48,
      payloadBytes: 16,
    });
  });

  it('jumbogram / BIG TCP: payload length 0 with hop-by-hop or TCP means the frame length', () => {
    const jumbo = frame(
      ipv6(0, 0),
      '06', //           hop-by-hop: next header TCP
      '00', //           length 0 (8 bytes)
      'c2', //           option Jumbo Payload
      '04', //           option length 4
      '00 00 00 80', //  jumbo payload length 128
      tcp(TCP_ACK),
      zeros(100),
    );
    expect(decode(DLT_IPV6, jumbo)).to.include({ status: 'ok', ipBytes: 168, payloadBytes: 100, l3HeaderBytes: 48 });
    const jumboUdp = frame(ipv6(0, 0), '11', '00', 'c2', '04', '00 00 00 14', udp(0) /* length 0: see jumbo length */, PAYLOAD4, zeros(8));
    expect(decode(DLT_IPV6, jumboUdp)).to.include({ status: 'ok', srcPort: 53, ipBytes: 68 });
    // BIG TCP as newer Linux captures it: payload length 0, no hop-by-hop header.
    const bigTcp = frame(ipv6(0, 6), tcp(TCP_ACK), zeros(100));
    expect(decode(DLT_IPV6, bigTcp)).to.include({ status: 'ok', ipBytes: 160, payloadBytes: 100, l3HeaderBytes: 40 });
    // Payload length 0 followed by UDP is not a jumbogram: no room for the UDP header.
    expect(decode(DLT_IPV6, frame(ipv6(0, 17), udp(12), PAYLOAD4)).status).to.equal('bad_ip_total_length');
  });

  it('payload length 0 without hop-by-hop and no next header is an empty packet', () => {
    expect(decode(DLT_IPV6, frame(ipv6(0, 59)))).to.include({ status: 'ok', protocol: 59, ipBytes: 40, hasPorts: false });
  });

  it('ICMPv6: type and code in place of the ports', () => {
    expect(decode(DLT_IPV6, frame(ipv6(8, 58), icmpEcho(128)))).to.include({ status: 'ok', protocol: 58, srcPort: 128, dstPort: 0 });
  });

  it('hop-by-hop anywhere but first is a bad extension header', () => {
    const v = decode(DLT_IPV6, frame(ipv6(16 + 8, 60), '00' /* dest opts -> hop-by-hop */, '00', zeros(6), '11', '00', zeros(6), udp(8)));
    expect(v.status).to.equal('bad_ipv6_ext_header');
  });

  it('an extension header longer than the payload length is bad; one cut by the snap length is truncated', () => {
    const bogus = frame(ipv6(16, 60), '11', '05' /* 48 bytes, payload says 16 */, zeros(6), udp(8));
    expect(decode(DLT_IPV6, bogus).status).to.equal('bad_ipv6_ext_header');
    const ok = frame(ipv6(24 + 8, 60), '11', '02' /* 24 bytes */, '01 16', zeros(20), udp(8));
    expect(decode(DLT_IPV6, ok)).to.include({ status: 'ok', l3HeaderBytes: 64 });
    expect(decode(DLT_IPV6, ok.subarray(0, 50), ok.length).status).to.equal('truncated_ip');
  });

  it('bounds the extension header chain', () => {
    const chain = (n: number): Buffer =>
      frame(ipv6(n * 8 + 8, 60), Array.from({ length: n }, (_, i) => [i === n - 1 ? '11' : '3c', '00', '01 04 00 00 00 00']).flat(), udp(8));
    expect(decode(DLT_IPV6, chain(16)).status).to.equal('ok');
    expect(decode(DLT_IPV6, chain(17)).status).to.equal('bad_ipv6_ext_header');
  });

  // Anomaly bits (native/decode/packet_view.h Ipv6Anomaly), after Suricata's decoder.ipv6.* events.
  const UNKNOWN = 1;
  const ONLY_PADDING = 2;
  const ZERO_LEN_PADN = 4;
  const PADN_NON_ZERO = 8;
  const BAD_OPTION_LENGTH = 16;
  const DUPLICATE = 32;
  const DATA_AFTER_NONE = 64;
  const ROUTING_TYPE_0 = 128;
  const EXCESS_PADDING = 256;
  /** One 8-byte options header (next header ICMPv6) holding `options` (6 bytes), then an echo request. */
  const withOptions = (first: number, options: string): Buffer => frame(ipv6(8 + 8, first), '3a', '00', options, icmpEcho(128));
  const inspect = (b: Buffer): Pick<Binding.DecodedPacket, 'status' | 'ipv6OptionHeaders' | 'ipv6Anomalies' | 'ipv6CovertBytes'> => {
    const v = decode(DLT_IPV6, b);
    return { status: v.status, ipv6OptionHeaders: v.ipv6OptionHeaders, ipv6Anomalies: v.ipv6Anomalies, ipv6CovertBytes: v.ipv6CovertBytes };
  };

  it('options a host stack sends carry no covert bytes: MLD Router Alert, Jumbo Payload, Home Address', () => {
    // Linux MLD report: hop-by-hop Router Alert (type 5, 2 bytes: MLD) then PadN of length 0 (Suricata's zero_len_padn).
    expect(inspect(withOptions(0, '05 02 00 00 01 00'))).to.deep.equal({
      status: 'ok',
      ipv6OptionHeaders: 1,
      ipv6Anomalies: ZERO_LEN_PADN,
      ipv6CovertBytes: 0,
    });
    // Tunnel Encapsulation Limit (type 4, 1 byte) then PadN with 1 zero byte.
    expect(inspect(withOptions(60, '04 01 04 01 01 00'))).to.deep.equal({ status: 'ok', ipv6OptionHeaders: 1, ipv6Anomalies: 0, ipv6CovertBytes: 0 });
    // Home Address (type 0xc9, 16 bytes) in a 24-byte destination options header, 4 bytes of Pad1/PadN around it.
    const hao = frame(ipv6(24 + 8, 60), '3a', '02', '01 02 00 00', 'c9 10', '20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 09', icmpEcho(128));
    expect(inspect(hao)).to.deep.equal({ status: 'ok', ipv6OptionHeaders: 1, ipv6Anomalies: 0, ipv6CovertBytes: 0 });
    // A Router Alert longer than its 2 bytes carries the rest.
    expect(inspect(withOptions(0, '05 04 00 00 ff ff'))).to.include({ ipv6Anomalies: 0, ipv6CovertBytes: 2 });
  });

  it('flags unknown options, padding-only headers and non-zero padding, counting the data they carry', () => {
    expect(inspect(withOptions(60, '1e 04 de ad be ef'))).to.deep.equal({ status: 'ok', ipv6OptionHeaders: 1, ipv6Anomalies: UNKNOWN, ipv6CovertBytes: 4 });
    expect(inspect(withOptions(0, '01 04 00 00 00 00'))).to.include({ ipv6Anomalies: ONLY_PADDING, ipv6CovertBytes: 0 });
    expect(inspect(withOptions(60, '01 04 00 68 69 00'))).to.include({ ipv6Anomalies: ONLY_PADDING | PADN_NON_ZERO, ipv6CovertBytes: 4 });
    // A registered option no common stack sends (CALIPSO, type 7) is no anomaly, but its data may hide something.
    expect(inspect(withOptions(0, '07 04 00 00 00 01'))).to.include({ ipv6Anomalies: 0, ipv6CovertBytes: 4 });
  });

  it('flags an option overrunning its header and more than 7 padding bytes in a row', () => {
    // Option length 9 in 6 bytes of options: the 6 bytes are left uninterpreted.
    expect(inspect(withOptions(60, '1e 09 00 00 00 00'))).to.include({ status: 'ok', ipv6Anomalies: BAD_OPTION_LENGTH, ipv6CovertBytes: 6 });
    const padded = frame(ipv6(16 + 8, 60), '3a', '01', '01 0c', zeros(12), icmpEcho(128)); // PadN of 14 bytes
    expect(inspect(padded)).to.include({ ipv6Anomalies: ONLY_PADDING | EXCESS_PADDING, ipv6CovertBytes: 0 });
  });

  it('flags headers repeated beyond RFC 8200, type 0 routing and data after No Next Header', () => {
    const dest = (next: string): string[] => [next, '00', '01 04 00 00 00 00'];
    const three = frame(ipv6(24 + 8, 60), dest('3c'), dest('3c'), dest('3a'), icmpEcho(128));
    expect(inspect(three)).to.deep.equal({ status: 'ok', ipv6OptionHeaders: 3, ipv6Anomalies: ONLY_PADDING | DUPLICATE, ipv6CovertBytes: 0 });
    const two = frame(ipv6(16 + 8, 60), dest('3c'), dest('3a'), icmpEcho(128));
    expect(inspect(two).ipv6Anomalies).to.equal(ONLY_PADDING);
    const rh0 = frame(ipv6(8 + 8, 43), '3a', '00', '00' /* routing type 0 */, '00', zeros(4), icmpEcho(128));
    expect(inspect(rh0)).to.deep.equal({ status: 'ok', ipv6OptionHeaders: 0, ipv6Anomalies: ROUTING_TYPE_0, ipv6CovertBytes: 0 });
    expect(inspect(frame(ipv6(12, 59), '68 69 64 65 20 6d 65 21' /* "hide me!" */, zeros(4)))).to.deep.equal({
      status: 'ok',
      ipv6OptionHeaders: 0,
      ipv6Anomalies: DATA_AFTER_NONE,
      ipv6CovertBytes: 12,
    });
    expect(inspect(frame(ipv6(0, 59))).ipv6Anomalies).to.equal(0);
  });

  it('a payload length beyond the wire frame is bogus', () => {
    expect(decode(DLT_IPV6, frame(ipv6(100, 17), udp(12), PAYLOAD4)).status).to.equal('bad_ip_total_length');
  });
});

describe('DecodePacket() TCP and UDP', () => {
  it('data offset below 5 or past the IP payload is a bad TCP header length (ports still filled)', () => {
    expect(decode(DLT_IPV4, frame(ipv4({ totalLength: 40, protocol: 6 }), tcp(TCP_SYN, 4)))).to.include({
      status: 'bad_tcp_header_length',
      hasPorts: true,
      dstPort: 80,
    });
    expect(decode(DLT_IPV4, frame(ipv4({ totalLength: 40, protocol: 6 }), tcp(TCP_SYN, 15))).status).to.equal('bad_tcp_header_length');
  });

  it('options cut by the snap length: truncated L4 with the fixed header fields', () => {
    const full = frame(ipv4({ totalLength: 52, protocol: 6 }), tcp(TCP_SYN | TCP_FIN, 8, ['02 04 05 b4', '01 03 03 07', '04 02 00 00']));
    expect(decode(DLT_IPV4, full)).to.include({ status: 'ok', l4HeaderBytes: 32 });
    expect(decode(DLT_IPV4, full.subarray(0, 44), full.length)).to.include({ status: 'truncated_l4', hasPorts: true, tcpFlags: TCP_SYN | TCP_FIN });
  });

  it('UDP length below 8 or above the IP payload is a bad UDP length', () => {
    expect(decode(DLT_IPV4, frame(ipv4({ totalLength: 32, protocol: 17 }), udp(4), PAYLOAD4)).status).to.equal('bad_udp_length');
    expect(decode(DLT_IPV4, frame(ipv4({ totalLength: 32, protocol: 17 }), udp(13), PAYLOAD4)).status).to.equal('bad_udp_length');
    // Shorter than the IP payload is tolerated; bytes still come from the IP length.
    expect(decode(DLT_IPV4, frame(ipv4({ totalLength: 32, protocol: 17 }), udp(10), PAYLOAD4))).to.include({ status: 'ok', payloadBytes: 4 });
  });

  it('an IP payload too small for the UDP or ICMP header is a bad total length', () => {
    expect(decode(DLT_IPV4, frame(ipv4({ totalLength: 24, protocol: 17 }), udp(8))).status).to.equal('bad_ip_total_length');
    expect(decode(DLT_IPV4, frame(ipv4({ totalLength: 22, protocol: 1 }), icmpEcho(8))).status).to.equal('bad_ip_total_length');
  });
});

describe('_decodePacket()', () => {
  it('rejects bad arguments with TypeError', () => {
    const raw = addon._decodePacket as unknown as (...args: unknown[]) => unknown;
    expect(() => raw(1)).to.throw(TypeError);
    expect(() => raw('1', Buffer.alloc(1))).to.throw(TypeError);
    expect(() => raw(1, new Uint16Array(2))).to.throw(TypeError);
  });
});
