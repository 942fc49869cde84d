/**
 * Flow counts and per-flow packet/byte totals of every fixture against tshark, an independent dissector. The tshark
 * answers are recorded in test/fixtures/flows/tshark-reference.json together with the exact commands that produced
 * them (regenerate with `node --import tsx test/fixtures/flows/tshark-reference.mjs`; tshark is not needed here).
 *
 * Deliberate differences, each asserted below rather than hidden:
 * - Vigil splits a 5-tuple into several flows on idle/active timeouts and TCP port reuse; tshark groups do not.
 *   So Vigil's flows are merged by the same group key (test/fixtures/flows/group-key.ts) before comparing.
 * - The key includes VLAN ids (the VLAN collision fixture is three flows); tshark's conversation tables are VLAN-blind.
 * - Vigil's decoder rejects IPv4 packets whose total length exceeds the wire length (counted as
 *   bad_ip_total_length); tshark dissects them anyway. A total length of 0 means the frame length for both.
 * - tshark's conversation tables count reassembled fragments once (and treat IPv6 atomic fragments as fragments);
 *   Vigil attributes every fragment to its flow, so the frame check is skipped for captures with fragments.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { replayFile, type ReplayResult } from '../../src/native/capture.js';
import type { FlowRecord } from '../../src/native/types.js';
import { groupKey } from '../fixtures/flows/group-key.js';
import { FIXTURES } from '../helpers/setup.js';

interface Reference {
  generatedWith: string;
  fieldsCommand: string;
  convCommand: string;
  files: Record<
    string,
    {
      groups: { key: string; packets: number; ipBytes: number }[];
      conversations: { proto: number; a: string; aPort: number; b: string; bPort: number; frames: number }[];
    }
  >;
}

const reference = JSON.parse(readFileSync(path.join(FIXTURES, 'flows', 'tshark-reference.json'), 'utf8')) as Reference;

/** Fixtures whose packets Vigil's decoder rejects on purpose: expected decode error counters instead of flows. */
const REJECTED: Record<string, Record<string, number>> = {
  // IPv4 total length 1500 on every frame, more than the wire length (nDPI's "badpackets")
  'ndpi_dns_ipv4_frag_truncated_badlen.pcap': { bad_ip_total_length: 93 },
};

/** Vigil flow counts per fixture (more than tshark's groups where timeouts or port reuse split a 5-tuple). */
const EXPECTED_FLOWS: Record<string, number> = {
  'ndpi_cicids2017_webattack_sqli.pcap': 9,
  'ndpi_nmap_syn_portscan.pcap': 1994,
  'sv_dhcp_request_flood_dos.pcap': 1,
  'sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap': 118,
  'sv_eth_ipv4_ipv6_ftp_active_passive.pcap': 160,
  'sv_eth_lan_dns_icmp_icmpv6_smb.pcap': 217,
  'sv_ipv6_dos_hbh_frag_ext_headers.pcap': 10,
  'sv_linktype_ipv4_228_dnp3_flood.pcap': 1,
  'sv_linux_sll2_gro_64k_packets.pcap': 1,
  'sv_linux_sll_log4shell_exploit.pcap': 7,
  'sv_null_loopback_smb.pcap': 9,
  'sv_rawip_dlt101_tcp_tls.pcap': 1,
  'sv_vlan8021q_syn_retransmit.pcap': 2,
  'zeek_dns_v4_v6_ipv4_fragments.pcap': 69,
  'zeek_ipv6_fragment_header_dns.pcap': 2,
  // one ICMP packet with IPv4 total length 0, taken as the frame length (46 bytes) as tshark does
  'zeek_malformed_ip_bogus_header_len.pcap': 1,
  'zeek_pcapng_two_interfaces.pcapng': 3,
  'zeek_qinq_8021ad_http.pcap': 1,
  'zeek_quic_chromium_ipv6.pcap': 1,
  'zeek_ssh_password_guessing.pcap': 11,
  'zeek_tcp_snaplen96_truncated.pcap': 1,
  'zeek_vlan_collisions_same_5tuple.pcap': 3,
};

/** Captures with IP fragments: fragments attributed + fragments without a flow, per Vigil. IPv6 atomic fragments
 * (offset 0, no M flag) are whole packets for Vigil and count 0 here. */
const FRAGMENTED = new Map<string, number>([
  ['sv_ipv6_dos_hbh_frag_ext_headers.pcap', 0],
  ['zeek_dns_v4_v6_ipv4_fragments.pcap', 4],
  ['zeek_ipv6_fragment_header_dns.pcap', 3],
]);

function groupsOf(flows: FlowRecord[]): Map<string, { packets: number; ipBytes: number }> {
  const out = new Map<string, { packets: number; ipBytes: number }>();
  for (const f of flows) {
    const key = groupKey([f.vlanOuter, f.vlanInner], f.protocol, f.srcIp, f.srcPort, f.dstIp, f.dstPort);
    const g = out.get(key) ?? { packets: 0, ipBytes: 0 };
    g.packets += f.packets;
    g.ipBytes += f.bytes;
    out.set(key, g);
  }
  return out;
}

describe(`flows vs tshark (${reference.generatedWith})`, () => {
  it('covers every readable fixture', () => {
    expect(Object.keys(reference.files).sort()).to.deep.equal([...Object.keys(EXPECTED_FLOWS), ...Object.keys(REJECTED)].sort());
  });

  for (const [name, ref] of Object.entries(reference.files)) {
    describe(name, () => {
      let result: ReplayResult;
      before(async () => {
        result = await replayFile(path.join(FIXTURES, 'pcaps', name));
      });

      if (REJECTED[name]) {
        it('rejects every packet with the expected decode error and creates no flow', () => {
          expect(result.flows).to.have.length(0);
          for (const [reason, n] of Object.entries(REJECTED[name])) expect(result.stats.decodeErrors[reason]).to.equal(n);
          expect(result.stats.packets).to.equal(ref.groups.reduce((a, g) => a + g.packets, 0));
        });
        return;
      }

      it(`has ${EXPECTED_FLOWS[name]} flows whose groups match tshark's packets and IP bytes`, () => {
        expect(result.flows).to.have.length(EXPECTED_FLOWS[name]);
        const mine = groupsOf(result.flows);
        const theirs = new Map(ref.groups.map((g) => [g.key, { packets: g.packets, ipBytes: g.ipBytes }]));
        expect([...mine.keys()].sort()).to.deep.equal([...theirs.keys()].sort());
        for (const [key, g] of theirs) expect(mine.get(key), key).to.deep.equal(g);
      });

      if (FRAGMENTED.has(name)) {
        it("has IP fragments, which tshark's conversation table counts differently (see the file comment)", () => {
          expect(result.stats.fragmentsAttributed + result.stats.decodeErrors.fragment_no_flow).to.equal(FRAGMENTED.get(name));
        });
        return;
      }

      it("matches tshark's TCP/UDP conversation table (frames per 5-tuple, VLAN-blind)", () => {
        const mine = new Map<string, number>();
        for (const f of result.flows) {
          if (f.protocol !== 6 && f.protocol !== 17) continue;
          const key = groupKey([], f.protocol, f.srcIp, f.srcPort, f.dstIp, f.dstPort);
          mine.set(key, (mine.get(key) ?? 0) + f.packets);
        }
        const theirs = new Map<string, number>();
        for (const c of ref.conversations) {
          const key = groupKey([], c.proto, c.a, c.aPort, c.b, c.bPort);
          theirs.set(key, (theirs.get(key) ?? 0) + c.frames);
        }
        expect(Object.fromEntries(mine)).to.deep.equal(Object.fromEntries(theirs));
      });
    });
  }
});
