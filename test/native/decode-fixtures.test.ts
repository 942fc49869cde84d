/**
 * Every fixture capture through the decoder alone (`build/decode_pcap`, libpcap + DecodePacket), checked against
 * tshark 4.x on the same files. The expected figures were recorded once with:
 *   tshark -r FILE -T fields -E occurrence=f -e ip.len -e ipv6.plen
 *     packets = lines; ipBytes = sum of ip.len, or ipv6.plen + 40; nonIp = lines with neither field
 *   tshark -r FILE -o ip.defragment:FALSE -o ipv6.defragment:FALSE -T fields -e ip.flags.mf -e ip.frag_offset
 *          -e ipv6.fraghdr.offset -e ipv6.fraghdr.more
 *     fragments = packets with MF set or a non-zero offset (IPv4) or a fragment header with M set or offset > 0
 * Where Vigil deliberately differs, the row says why.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

import { FIXTURES, ROOT } from '../helpers/setup.js';

const TOOL = path.join(ROOT, 'build', 'decode_pcap');
const PCAPS = path.join(FIXTURES, 'pcaps');

interface Expected {
  packets: number;
  /** IP-layer bytes of the packets that decode ok (tshark's sum unless `status` says some are bogus). */
  ipBytes: number;
  nonIp: number;
  fragments: number;
  /** Exact status counts, for files with malformed packets. */
  status?: Record<string, number>;
}

const EXPECTED: Record<string, Expected> = {
  'ndpi_cicids2017_webattack_sqli.pcap': { packets: 94, ipBytes: 28692, nonIp: 0, fragments: 0 },
  // tshark: every packet "IPv4 total length exceeds packet length" (1500 > frame); it still sums ip.len = 139404.
  // Vigil rejects the length (it exceeds what was on the wire), so none of them count bytes.
  'ndpi_dns_ipv4_frag_truncated_badlen.pcap': { packets: 93, ipBytes: 0, nonIp: 0, fragments: 0, status: { bad_ip_total_length: 93 } },
  'ndpi_nmap_syn_portscan.pcap': { packets: 2011, ipBytes: 88464, nonIp: 0, fragments: 0 },
  'sv_dhcp_request_flood_dos.pcap': { packets: 10000, ipBytes: 2720000, nonIp: 0, fragments: 0 },
  'sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap': { packets: 3138, ipBytes: 1505072, nonIp: 48, fragments: 0 },
  'sv_eth_ipv4_ipv6_ftp_active_passive.pcap': { packets: 1350, ipBytes: 146093, nonIp: 126, fragments: 0 },
  'sv_eth_lan_dns_icmp_icmpv6_smb.pcap': { packets: 1000, ipBytes: 91908, nonIp: 90, fragments: 0 },
  // tshark counts 39827 fragment headers: 15 of them are inside the quoted packet of ICMPv6 error messages, which
  // Vigil (like any flow meter) does not decode as the packet's own header.
  'sv_ipv6_dos_hbh_frag_ext_headers.pcap': { packets: 39838, ipBytes: 2789714, nonIp: 0, fragments: 39812 },
  'sv_linktype_ipv4_228_dnp3_flood.pcap': { packets: 40, ipBytes: 2755, nonIp: 0, fragments: 0 },
  'sv_linux_sll2_gro_64k_packets.pcap': { packets: 159, ipBytes: 2607241, nonIp: 0, fragments: 0 },
  'sv_linux_sll_log4shell_exploit.pcap': { packets: 426, ipBytes: 27866, nonIp: 4, fragments: 0 },
  'sv_null_loopback_smb.pcap': { packets: 3519, ipBytes: 902101, nonIp: 0, fragments: 0 },
  'sv_rawip_dlt101_tcp_tls.pcap': { packets: 42, ipBytes: 15250, nonIp: 0, fragments: 0 },
  'sv_vlan8021q_syn_retransmit.pcap': { packets: 254, ipBytes: 224248, nonIp: 0, fragments: 0 },
  'zeek_dns_v4_v6_ipv4_fragments.pcap': { packets: 89, ipBytes: 35597, nonIp: 0, fragments: 8 },
  'zeek_ipv6_fragment_header_dns.pcap': { packets: 8, ipBytes: 4508, nonIp: 0, fragments: 4 },
  // IPv4 total length 0 on ICMP: like tshark (its TSO preference), Vigil takes the frame length, 46.
  'zeek_malformed_ip_bogus_header_len.pcap': { packets: 1, ipBytes: 46, nonIp: 0, fragments: 0 },
  'zeek_pcapng_two_interfaces.pcapng': { packets: 6, ipBytes: 714, nonIp: 0, fragments: 0 },
  'zeek_qinq_8021ad_http.pcap': { packets: 14, ipBytes: 5891, nonIp: 0, fragments: 0 },
  'zeek_quic_chromium_ipv6.pcap': { packets: 917, ipBytes: 967538, nonIp: 0, fragments: 0 },
  'zeek_ssh_password_guessing.pcap': { packets: 431, ipBytes: 77967, nonIp: 0, fragments: 0 },
  'zeek_tcp_snaplen96_truncated.pcap': { packets: 878, ipBytes: 1045672, nonIp: 0, fragments: 0 },
  'zeek_vlan_collisions_same_5tuple.pcap': { packets: 42, ipBytes: 17673, nonIp: 0, fragments: 0 },
};

interface ToolLine {
  file: string;
  packets: number;
  ipBytes: number;
  fragments: number;
  status: Record<string, number>;
}

describe('DecodePacket() on every fixture capture (decode_pcap vs tshark)', () => {
  let results: Map<string, ToolLine>;

  before(function () {
    if (!existsSync(TOOL)) throw new Error(`${TOOL} is missing: run \`npm run build:native\``);
    const files = Object.keys(EXPECTED).map((f) => path.join(PCAPS, f));
    const r = spawnSync(TOOL, files, { encoding: 'utf8' });
    expect(r.status, r.stderr).to.equal(0);
    results = new Map(
      r.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as ToolLine)
        .map((l) => [path.basename(l.file), l]),
    );
  });

  for (const [file, want] of Object.entries(EXPECTED)) {
    it(file, () => {
      const got = results.get(file);
      expect(got, 'decode_pcap printed no line').to.not.equal(undefined);
      if (!got) return;
      expect(got.packets).to.equal(want.packets);
      expect(got.ipBytes).to.equal(want.ipBytes);
      expect(got.fragments).to.equal(want.fragments);
      expect(got.status.non_ip ?? 0).to.equal(want.nonIp);
      if (want.status) {
        expect(got.status).to.deep.equal(want.status);
      } else {
        expect(got.status).to.deep.equal({ ok: want.packets - want.nonIp, ...(want.nonIp > 0 ? { non_ip: want.nonIp } : {}) });
      }
    });
  }

  it('reports the pcapng libpcap 1.10 cannot read with a clear error and a non-zero exit', () => {
    const r = spawnSync(TOOL, [path.join(PCAPS, 'zeek_pcapng_126_idbs_mixed_linktypes.pcapng')], { encoding: 'utf8' });
    expect(r.status).to.equal(2);
    expect(r.stderr).to.match(/decode_pcap: .*zeek_pcapng_126_idbs_mixed_linktypes\.pcapng.*snapshot length/);
  });
});
