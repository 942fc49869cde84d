/**
 * ARP (native/app/arp.cpp) through the test-only `_parseArp` and `_arpTableTest` exports: real packets from the
 * fixture captures with tshark 4.0's fields for them (`tshark -r FILE -Y arp -T fields -e frame.number
 * -e frame.time_epoch -e arp.opcode -e arp.src.hw_mac -e arp.src.proto_ipv4 -e arp.dst.proto_ipv4`), every prefix,
 * malformed packets, and the binding table over a whole capture, with eviction and a spoofing pattern.
 */
import path from 'node:path';

import { expect } from 'chai';

import type { Binding } from '../../../binding.js';
import { loadBinding } from '../../../src/native/load.js';
import { readClassicPcap } from '../../helpers/pcap-file.js';
import { FIXTURES } from '../../helpers/setup.js';

const addon = loadBinding();
const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const PCAPS = path.join(FIXTURES, 'pcaps');

// sv_eth_lan_dns_icmp_icmpv6_smb.pcap frame 48: who-has 192.168.199.1 tell 192.168.199.133 (bytes after ethertype 0x0806)
const REQUEST = hex(`
  0001 0800 06 04 0001 ${'' /* htype Ethernet, ptype IPv4, hlen 6, plen 4, op 1 request */}
  000c2961f55f c0a8c785 ${'' /* sender 00:0c:29:61:f5:5f 192.168.199.133 */}
  000000000000 c0a8c701 ${'' /* target 00:00:00:00:00:00 192.168.199.1 */}`);
// frame 49: 192.168.199.1 is-at 00:50:56:c0:00:01
const REPLY = hex('0001 0800 06 04 0002  005056c00001 c0a8c701  000c2961f55f c0a8c785');
// frame 18: gratuitous ARP ("ARP Announcement" in tshark) for 169.254.145.153: sender IP == target IP
const GRATUITOUS = hex('0001 0800 06 04 0001  000c2961f55f a9fe9199  000000000000 a9fe9199');
// sv_linux_sll_log4shell_exploit.pcap frame 7 (Linux cooked capture): 172.16.238.11 is-at 02:42:ac:10:ee:0b
const SLL_REPLY = hex('0001 0800 06 04 0002  0242ac10ee0b ac10ee0b  0242ac10ee0a ac10ee0a');

const ARP_STATUSES = ['arp_ok', 'arp_truncated', 'arp_unsupported', 'arp_bad_op'];

/** The ARP packets (bytes after the ethertype) of a classic little-endian microsecond pcap of Ethernet frames. */
function arpPackets(file: string): { tsNs: bigint; arp: Buffer }[] {
  const { linkType, littleEndian, records } = readClassicPcap(path.join(PCAPS, file));
  expect(littleEndian).to.equal(true);
  expect(linkType).to.equal(1); // LINKTYPE_ETHERNET
  return records.filter(({ frame }) => frame.length >= 14 && frame.readUInt16BE(12) === 0x0806).map(({ tsNs, frame }) => ({ tsNs, arp: frame.subarray(14) }));
}

describe('ParseArp (native/app/arp.cpp)', () => {
  it('reads a request, a reply and a gratuitous ARP as tshark does', () => {
    const base = { status: 'arp_ok' };
    expect(addon._parseArp(REQUEST)).to.deep.equal({
      ...base,
      op: 1,
      senderMac: '00:0c:29:61:f5:5f',
      senderIp: '192.168.199.133',
      targetMac: '00:00:00:00:00:00',
      targetIp: '192.168.199.1',
    });
    expect(addon._parseArp(REPLY)).to.deep.equal({
      ...base,
      op: 2,
      senderMac: '00:50:56:c0:00:01',
      senderIp: '192.168.199.1',
      targetMac: '00:0c:29:61:f5:5f',
      targetIp: '192.168.199.133',
    });
    expect(addon._parseArp(GRATUITOUS)).to.include({ op: 1, senderIp: '169.254.145.153', targetIp: '169.254.145.153' });
    expect(addon._parseArp(SLL_REPLY)).to.include({ op: 2, senderMac: '02:42:ac:10:ee:0b', senderIp: '172.16.238.11' });
  });

  it('ignores Ethernet padding after the 28 bytes', () => {
    expect(addon._parseArp(Buffer.concat([REPLY, Buffer.alloc(18)]))).to.include({ status: 'arp_ok', senderIp: '192.168.199.1' });
  });

  it('parses every prefix of every packet: truncated until all 28 bytes are in', () => {
    for (const p of [REQUEST, REPLY, GRATUITOUS, SLL_REPLY]) {
      for (let n = 0; n <= p.length; n++) {
        const r = addon._parseArp(p.subarray(0, n));
        expect(ARP_STATUSES).to.include(r.status);
        expect(r.status, `first ${n} bytes`).to.equal(n === 28 ? 'arp_ok' : 'arp_truncated');
      }
    }
  });

  it('reports other hardware and protocol types as unsupported and other opcodes as bad', () => {
    const withHeader = (head: string): Buffer => Buffer.concat([hex(head), REQUEST.subarray(8)]);
    expect(addon._parseArp(withHeader('0006 0800 06 04 0001')).status).to.equal('arp_unsupported'); // IEEE 802 hardware
    expect(addon._parseArp(withHeader('0001 86dd 06 04 0001')).status).to.equal('arp_unsupported'); // not IPv4
    expect(addon._parseArp(withHeader('0001 0800 08 04 0001')).status).to.equal('arp_unsupported'); // hlen 8
    expect(addon._parseArp(withHeader('0001 0800 06 10 0001')).status).to.equal('arp_unsupported'); // plen 16
    expect(addon._parseArp(withHeader('0001 0800 06 04 0003')).status).to.equal('arp_bad_op'); // RARP request
    expect(addon._parseArp(withHeader('0001 0800 06 04 0000')).status).to.equal('arp_bad_op');
  });
});

describe('ArpTable (native/app/arp.cpp)', () => {
  it('summarises sv_eth_lan_dns_icmp_icmpv6_smb.pcap into the bindings tshark shows', () => {
    const packets = arpPackets('sv_eth_lan_dns_icmp_icmpv6_smb.pcap');
    expect(packets).to.have.length(90); // tshark -Y arp: 90 frames
    const r = addon._arpTableTest(64, [...packets, { drain: 1000 }]);
    expect(r.statuses).to.deep.equal(packets.map(() => 'arp_ok'));
    expect(r).to.include({ evictions: 0, size: 7 });
    // Per (sender IP, sender MAC), in order of first appearance, from the tshark fields above (frame numbers noted);
    // targetRuns counts the changes of arp.dst.proto_ipv4 between a binding's consecutive requests (arp.opcode 1) that
    // are not gratuitous (plus its first), newTargets the distinct arp.dst.proto_ipv4 of those requests, gratuitous the
    // frames whose arp.src.proto_ipv4 equals arp.dst.proto_ipv4.
    const expected: Array<Omit<Binding.ArpBindingRecord, 'newTargetTimesNs'>> = [
      // ARP probes (RFC 5227) carry sender IP 0.0.0.0: frames 14..62
      {
        senderIp: '0.0.0.0',
        senderMac: '00:0c:29:61:f5:5f',
        targetIp: '192.168.199.133',
        requests: 6,
        replies: 0,
        targetRuns: 2,
        newTargets: 2,
        gratuitous: 0,
        firstNs: 1476605302067418000n,
        lastNs: 1476605331567172000n,
      },
      // the announcement in frame 18
      {
        senderIp: '169.254.145.153',
        senderMac: '00:0c:29:61:f5:5f',
        targetIp: '169.254.145.153',
        requests: 1,
        replies: 0,
        targetRuns: 0,
        newTargets: 0,
        gratuitous: 1,
        firstNs: 1476605305067479000n,
        lastNs: 1476605305067479000n,
      },
      // frames 48..984
      {
        senderIp: '192.168.199.133',
        senderMac: '00:0c:29:61:f5:5f',
        targetIp: '192.168.199.1',
        requests: 26,
        replies: 2,
        targetRuns: 7,
        newTargets: 2,
        gratuitous: 1,
        firstNs: 1476605330822719000n,
        lastNs: 1476605926566334000n,
      },
      // frames 49..985
      {
        senderIp: '192.168.199.1',
        senderMac: '00:50:56:c0:00:01',
        targetIp: '192.168.199.133',
        requests: 0,
        replies: 29,
        targetRuns: 0,
        newTargets: 0,
        gratuitous: 0,
        firstNs: 1476605330822737000n,
        lastNs: 1476605926566366000n,
      },
      // frames 311..528
      {
        senderIp: '0.0.0.0',
        senderMac: '00:0c:29:03:df:ad',
        targetIp: '192.168.199.132',
        requests: 11,
        replies: 0,
        targetRuns: 4,
        newTargets: 2,
        gratuitous: 0,
        firstNs: 1476605426613220000n,
        lastNs: 1476605500965529000n,
      },
      // frames 346..964
      {
        senderIp: '192.168.199.132',
        senderMac: '00:0c:29:03:df:ad',
        targetIp: '192.168.199.133',
        requests: 11,
        replies: 3,
        targetRuns: 4,
        newTargets: 2,
        gratuitous: 2,
        firstNs: 1476605427665300000n,
        lastNs: 1476605886462166000n,
      },
      // frame 465
      {
        senderIp: '169.254.195.103',
        senderMac: '00:0c:29:03:df:ad',
        targetIp: '169.254.195.103',
        requests: 1,
        replies: 0,
        targetRuns: 0,
        newTargets: 0,
        gratuitous: 1,
        firstNs: 1476605474965581000n,
        lastNs: 1476605474965581000n,
      },
    ];
    expect(r.drains).to.have.length(1);
    expect(r.drains[0]!.map(({ newTargetTimesNs, ...totals }) => totals)).to.deep.equal(expected);
    // One drain: every new target's time, within the binding's first and last.
    for (const b of r.drains[0]!) {
      expect(b.newTargetTimesNs).to.have.length(b.newTargets);
      for (const t of b.newTargetTimesNs) expect(t >= b.firstNs && t <= b.lastNs, b.senderIp).to.equal(true);
    }
  });

  it('hands out only the bindings changed since the last drain, at most max per call, with running totals', () => {
    const r = addon._arpTableTest(8, [
      { arp: REQUEST, tsNs: 10n },
      { arp: REPLY, tsNs: 20n },
      { drain: 1 },
      { drain: 10 },
      { drain: 10 },
      { arp: REQUEST, tsNs: 30n },
      { drain: 10 },
    ]);
    expect(r.drains.map((d) => d.map((b) => b.senderIp))).to.deep.equal([['192.168.199.133'], ['192.168.199.1'], [], ['192.168.199.133']]);
    expect(r.drains[3][0]).to.include({ requests: 2, replies: 0, targetRuns: 1, gratuitous: 0, firstNs: 10n, lastNs: 30n });
    expect(r.size).to.equal(2);
  });

  it('keeps a spoofed reply apart: one IP, two MACs, two bindings', () => {
    // A forged reply claiming the gateway 192.168.199.1 for the host 00:0c:29:03:df:ad (frame 49 with another sender MAC).
    const forged = hex('0001 0800 06 04 0002  000c2903dfad c0a8c701  000c2961f55f c0a8c785');
    const r = addon._arpTableTest(8, [{ arp: REPLY, tsNs: 1n }, { arp: forged, tsNs: 2n }, { arp: forged, tsNs: 3n }, { drain: 10 }]);
    const gateway = r.drains[0].filter((b) => b.senderIp === '192.168.199.1');
    expect(gateway.map((b) => [b.senderMac, b.replies])).to.deep.equal([
      ['00:50:56:c0:00:01', 1],
      ['00:0c:29:03:df:ad', 2],
    ]);
  });

  it('counts a sweep of N addresses as N target runs, and repeats, replies and announcements as none', () => {
    // frame 48's sender asking for 192.168.199.2..21, then for .21 again, then announcing itself (gratuitous).
    const ask = (last: number): Buffer => Buffer.concat([REQUEST.subarray(0, 24), Buffer.from([192, 168, 199, last])]);
    const announce = Buffer.concat([REQUEST.subarray(0, 24), Buffer.from([192, 168, 199, 133])]);
    const steps: Binding.ArpTableStep[] = [];
    for (let last = 2; last <= 21; last++) steps.push({ arp: ask(last), tsNs: BigInt(last) });
    steps.push({ arp: ask(21), tsNs: 30n }, { arp: announce, tsNs: 31n }, { arp: ask(21), tsNs: 32n }, { drain: 10 });
    const r = addon._arpTableTest(8, steps);
    expect(r.drains[0]).to.have.length(1);
    expect(r.drains[0]![0]).to.include({ senderIp: '192.168.199.133', requests: 23, targetRuns: 20, newTargets: 20, gratuitous: 1 });
    // The gateway answering two askers in turn: replies start no runs.
    const toOther = hex('0001 0800 06 04 0002  005056c00001 c0a8c701  000c2903dfad c0a8c784');
    const g = addon._arpTableTest(8, [{ arp: REPLY, tsNs: 1n }, { arp: toOther, tsNs: 2n }, { arp: REPLY, tsNs: 3n }, { drain: 10 }]);
    expect(g.drains[0]![0]).to.include({ replies: 3, targetRuns: 0 });
  });

  it('counts a gateway refreshing the same neighbours in turn once per neighbour as new targets, each change as a run', () => {
    // The sandbox gateway of corelight's AsyncRAT captures: ~500 requests cycling over ~20 neighbours. Here 3 neighbours
    // asked in turn 10 times: 30 runs, 3 new targets; then 70 distinct addresses (more than the 64 remembered), twice.
    const ask = (last: number): Buffer => Buffer.concat([REQUEST.subarray(0, 24), Buffer.from([192, 168, 199, last])]);
    const steps: Binding.ArpTableStep[] = [];
    let t = 0n;
    for (let round = 0; round < 10; round++) for (const last of [10, 11, 12]) steps.push({ arp: ask(last), tsNs: ++t });
    steps.push({ drain: 10 });
    for (let round = 0; round < 2; round++) for (let last = 140; last < 210; last++) steps.push({ arp: ask(last), tsNs: ++t });
    steps.push({ drain: 10 });
    const r = addon._arpTableTest(8, steps);
    expect(r.drains[0]![0]).to.include({ requests: 30, targetRuns: 30, newTargets: 3 });
    expect(r.drains[0]![0]!.newTargetTimesNs).to.deep.equal([1n, 2n, 3n]);
    // 70 new, then the 70 again: the 64 most recent are remembered, so the cycle's first 70 - 64 = 6 come back as new,
    // and each of them pushes out the next one (a sweep of more than 64 addresses counts every request).
    expect(r.drains[1]![0]).to.include({ requests: 170, targetRuns: 170, newTargets: 3 + 70 + 70 });
    // 140 new targets since the first drain: the latest 64 times, oldest first (requests 31..170 at times 31n..170n).
    expect(r.drains[1]![0]!.newTargetTimesNs).to.deep.equal(Array.from({ length: 64 }, (_, k) => BigInt(170 - 63 + k)));
  });

  it('evicts the least recently seen binding when full, counts it, and drops its undrained changes', () => {
    const at = (ip: number, op = 1): Buffer => hex(`0001 0800 06 04 000${op}  020000000001 0a0000${ip.toString(16).padStart(2, '0')}  000000000000 0a0000fe`);
    const r = addon._arpTableTest(2, [
      { arp: at(1), tsNs: 1n },
      { arp: at(2), tsNs: 2n },
      { arp: at(1), tsNs: 3n }, // 10.0.0.1 is now the most recent
      { arp: at(3), tsNs: 4n }, // full: 10.0.0.2 goes
      { drain: 10 },
      { arp: at(2, 2), tsNs: 5n }, // comes back as a new binding; 10.0.0.1 goes
      { drain: 10 },
    ]);
    expect(r.evictions).to.equal(2);
    expect(r.size).to.equal(2);
    expect(r.drains[0].map((b) => [b.senderIp, b.requests])).to.deep.equal([
      ['10.0.0.1', 2],
      ['10.0.0.3', 1],
    ]);
    expect(r.drains[1].map((b) => [b.senderIp, b.requests, b.replies, b.firstNs])).to.deep.equal([['10.0.0.2', 0, 1, 5n]]);
  });

  it('skips packets that do not parse', () => {
    const r = addon._arpTableTest(4, [{ arp: REQUEST.subarray(0, 20), tsNs: 1n }, { drain: 10 }]);
    expect(r.statuses).to.deep.equal(['arp_truncated']);
    expect(r.drains).to.deep.equal([[]]);
    expect(r.size).to.equal(0);
  });
});
