/**
 * DHCP parser tests: real client and server messages from the fixture captures through the real C++ ParseDhcp
 * (test-only `_parseDhcp`), checked against tshark's `dhcp.type`, `dhcp.hw.mac_addr`, `dhcp.option.dhcp` and
 * `dhcp.option.hostname`, then hand-built messages for the options walk and truncation at every byte.
 */
import { expect } from 'chai';

import type { Binding } from '../../../binding.js';
import { loadBinding } from '../../../src/native/load.js';

const addon = loadBinding();
const parse = (bytes: Uint8Array): Binding.ParsedDhcp => addon._parseDhcp(bytes);

const STATUSES: Binding.DhcpStatusName[] = ['dhcp_ok', 'dhcp_truncated', 'dhcp_bad_magic', 'dhcp_bad_option'];
const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const zeros = (n: number): string => '00'.repeat(n);
const COOKIE = '63825363';

/** A BOOTP header (236 bytes): the given op/htype/hlen and chaddr, everything else zero. */
function bootp(op: number, chaddr: string, htype = 1, hlen = 6): string {
  const ch = chaddr.replace(/:/g, '');
  return [op, htype, hlen, 0].map((b) => b.toString(16).padStart(2, '0')).join('') + zeros(24) + ch + zeros(16 - ch.length / 2) + zeros(192);
}

interface RealDhcp {
  source: string;
  hex: string;
  /** Bytes of the UDP payload in the capture (the zero runs below are written with zeros()). */
  length: number;
  tshark: { op: number; clientMac: string; messageType: number; hostname: string };
}

// The bench file is bench_ndpi_merged_ethernet_mixed.pcap in /work/shared/data/pcaps (SOURCES.md there).
const REAL: RealDhcp[] = [
  {
    // bench frame 12461: DHCPDISCOVER from a Mac, host name option
    source: 'bench_ndpi_merged_ethernet_mixed.pcap#12461',
    hex: [
      '01010600 b6332e0d 0000 0000', // op 1, htype 1, hlen 6, hops 0; xid; secs; flags
      zeros(16), //                     ciaddr yiaddr siaddr giaddr
      'd8306256001c' + zeros(10), //    chaddr
      zeros(192), //                    sname, file
      COOKIE,
      '350101', //                                        53 message type: DISCOVER
      '37090103060f775ffc2c2e', //                        55 parameter request list
      '390205dc', //                                      57 max message size
      '3d0701d8306256001c', //                            61 client id
      '33040076a700', //                                  51 lease time
      '0c0a4c756361732d694d6163', //                      12 host name "Lucas-iMac"
      'ff' + zeros(14), //                                end, padding
    ].join(''),
    length: 300,
    tshark: { op: 1, clientMac: 'd8:30:62:56:00:1c', messageType: 1, hostname: 'Lucas-iMac' },
  },
  {
    // bench frame 20735: DHCPACK from a server (op 2), no host name
    source: 'bench_ndpi_merged_ethernet_mixed.pcap#20735',
    hex: [
      '02010600 c0912052 0000 8000', // op 2; xid; secs; flags (broadcast)
      'c0a80524 c0a80524 c0a87701 00000000', // ciaddr yiaddr siaddr giaddr
      '00265ac26355' + zeros(10),
      zeros(192),
      COOKIE,
      '350105', //                                        53: ACK
      '3604c0a87701', //                                  54 server id
      '33040000003c', //                                  51 lease time
      '0104ffff0000', //                                  1 subnet mask
      '0304c0a87701', //                                  3 router
      '0610a85f010108080808a85fc001080804042a08a85fc30c7bcc2d74', // 6 DNS servers, 42 NTP servers
      'ff' + zeros(4),
    ].join(''),
    length: 300,
    tshark: { op: 2, clientMac: '00:26:5a:c2:63:55', messageType: 5, hostname: '' },
  },
  {
    // bench frame 53514: DISCOVER from a Raspberry Pi, host name "pi3.ntop.org" after a vendor class (60)
    source: 'bench_ndpi_merged_ethernet_mixed.pcap#53514',
    hex: [
      '01010600 158298c6 18b5 0000',
      zeros(16),
      '00808f9aaebd' + zeros(10),
      zeros(192),
      COOKIE,
      '350101',
      '3d13ff8f9aaebd000100011fcb37ceb827eb3d08db50',
      '00740101',
      '390205dc',
      '3c2d6468637063642d362e31302e313a4c696e75782d342e392e35372d76372b3a61726d76376c3a42434d32383335',
      '0c0c7069332e6e746f702e6f7267',
      '910101',
      '370f01792103060c0f1a1c2a33363a3b77',
      'ff',
    ].join(''),
    length: 355,
    tshark: { op: 1, clientMac: '00:80:8f:9a:ae:bd', messageType: 1, hostname: 'pi3.ntop.org' },
  },
  {
    // sv_dhcp_request_flood_dos.pcap frame 1: a flood tool's DISCOVER whose chaddr holds the text "de:ad:"
    source: 'sv_dhcp_request_flood_dos.pcap#1',
    hex: ['01010600 00000001 0000 0001', zeros(16), '64653a61643a62653a65663a61613a62', zeros(192), COOKIE, '350101', 'ff'].join(''),
    length: 244,
    tshark: { op: 1, clientMac: '64:65:3a:61:64:3a', messageType: 1, hostname: '' },
  },
];

describe('ParseDhcp() (native/app/dhcp.cpp)', () => {
  describe('real payloads agree with tshark', () => {
    for (const v of REAL) {
      it(v.source, () => {
        const bytes = hex(v.hex);
        expect(bytes.length).to.equal(v.length);
        const r = parse(bytes);
        expect(r.status).to.equal('dhcp_ok');
        expect({ op: r.op, clientMac: r.clientMac, messageType: r.messageType, hostname: r.hostname }).to.deep.equal(v.tshark);
        expect(r.looksLikeDhcp).to.equal(true);
      });
    }
  });

  describe('options', () => {
    it('skips pad options and stops at the end option', () => {
      const r = parse(hex(bootp(1, 'aa:bb:cc:dd:ee:ff') + COOKIE + '0000350103' + '00' + '0c03616263' + 'ff' + '0c0378797a'));
      expect(r).to.include({ status: 'dhcp_ok', messageType: 3, clientMac: 'aa:bb:cc:dd:ee:ff', hostname: 'abc' });
    });

    it('accepts options that run to the end of the payload without an end option', () => {
      expect(parse(hex(bootp(1, 'aa:bb:cc:dd:ee:ff') + COOKIE + '350101'))).to.include({ status: 'dhcp_ok', messageType: 1 });
    });

    it('renders the host name as tshark does: up to a NUL, high bytes as U+FFFD, controls escaped', () => {
      // tshark 4.0 printed "abc", "ab", "a\ufffdb", "h\ufffd\ufffd\x01x" (it leaves the control byte raw; we escape it).
      const host = (v: string): string =>
        parse(hex(bootp(1, 'aa:bb:cc:dd:ee:ff') + COOKIE + '0c' + (v.length / 2).toString(16).padStart(2, '0') + v + 'ff')).hostname;
      expect(host('61626300')).to.equal('abc');
      expect(host('6162006364')).to.equal('ab');
      expect(host('61ff62')).to.equal('a\ufffdb');
      expect(host('68c3a90178')).to.equal('h\ufffd\ufffd\\001x');
    });

    it('reports a message type of the wrong length and an empty host name as bad options', () => {
      expect(parse(hex(bootp(1, 'aa:bb:cc:dd:ee:ff') + COOKIE + '35020101ff')).status).to.equal('dhcp_bad_option');
      expect(parse(hex(bootp(1, 'aa:bb:cc:dd:ee:ff') + COOKIE + '0c00ff')).status).to.equal('dhcp_bad_option');
    });

    it('keeps the MAC only for Ethernet hardware addresses', () => {
      const r = parse(hex(bootp(1, 'aa:bb:cc:dd:ee:ff:11:22', 6, 8) + COOKIE + 'ff'));
      expect(r).to.include({ status: 'dhcp_ok', clientMac: '00:00:00:00:00:00', looksLikeDhcp: false });
    });

    it('reports plain BOOTP (no magic cookie) as dhcp_bad_magic', () => {
      const r = parse(hex(bootp(1, 'aa:bb:cc:dd:ee:ff') + zeros(64)));
      expect(r).to.include({ status: 'dhcp_bad_magic', op: 1, looksLikeDhcp: false });
    });
  });

  describe('truncation at every byte', () => {
    it('returns a status for every prefix: truncated inside the header and cookie or an option', () => {
      for (const v of REAL) {
        const bytes = hex(v.hex);
        const whole = parse(bytes);
        for (let n = 0; n < bytes.length; n++) {
          const r = parse(bytes.subarray(0, n));
          expect(STATUSES).to.include(r.status);
          if (n < 240) expect(r).to.include({ status: 'dhcp_truncated', looksLikeDhcp: false });
          expect(r.hostname === '' || r.hostname === whole.hostname).to.equal(true);
        }
      }
    });
  });
});

describe('LooksLikeDhcp() (native/app/dhcp.cpp)', () => {
  it('rejects a bad op, hardware type or length, or cookie', () => {
    const ok = bootp(1, 'aa:bb:cc:dd:ee:ff') + COOKIE + 'ff';
    expect(parse(hex(ok)).looksLikeDhcp).to.equal(true);
    expect(parse(hex('03' + ok.slice(2))).looksLikeDhcp).to.equal(false);
    expect(parse(hex(bootp(1, 'aa:bb:cc:dd:ee:ff', 6) + COOKIE + 'ff')).looksLikeDhcp).to.equal(false);
    expect(parse(hex(bootp(1, 'aa:bb:cc:dd:ee:ff') + '63825364ff')).looksLikeDhcp).to.equal(false);
  });
});
