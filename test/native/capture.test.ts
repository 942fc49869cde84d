/**
 * The capture pipeline end to end through `src/native/capture.ts` (real addon, real libpcap, offline fixtures):
 * Sensor lifecycle, open/read errors, filters, link types, flow-table limits and timeouts, snapshots, early features.
 */
import { expect } from 'chai';
import { copyFileSync, openSync, readFileSync, writeFileSync, closeSync, ftruncateSync } from 'node:fs';
import path from 'node:path';
import { createSensor, listInterfaces, replayFile } from '../../src/native/capture.js';
import { CaptureError } from '../../src/native/errors.js';
import type { FlowRecord, SensorStats } from '../../src/native/types.js';
import { FIXTURES, tempDir } from '../helpers/setup.js';

const pcap = (name: string): string => path.join(FIXTURES, 'pcaps', name);

async function rejection(p: Promise<unknown>): Promise<CaptureError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(CaptureError);
    return err as CaptureError;
  }
  throw new Error('expected a rejection');
}

describe('replayFile()', () => {
  it('rejects a missing file with capture_file_unreadable and a message naming the path', async () => {
    const err = await rejection(replayFile('/nonexistent/x.pcap'));
    expect(err.code).to.equal('capture_file_unreadable');
    expect(err.nativeCode).to.equal('ERR_CAPTURE_FILE_UNREADABLE');
    expect(err.status).to.equal(400);
    expect(err.message).to.contain('/nonexistent/x.pcap').and.contain('No such file');
  });

  it('rejects a file that is not a capture with capture_file_unreadable', async () => {
    const file = path.join(tempDir(), 'notes.pcap');
    writeFileSync(file, 'hello, this is not a pcap file\n');
    const err = await rejection(replayFile(file));
    expect(err.code).to.equal('capture_file_unreadable');
    expect(err.message).to.contain('not a pcap or pcapng');
  });

  it('rejects a pcap header cut short with capture_file_corrupt', async () => {
    const file = path.join(tempDir(), 'short.pcap');
    writeFileSync(file, readFileSync(pcap('ndpi_cicids2017_webattack_sqli.pcap')).subarray(0, 12));
    const err = await rejection(replayFile(file));
    expect(err.code).to.equal('capture_file_corrupt');
  });

  it('rejects a file truncated inside a packet record with capture_file_corrupt after reading what it could', async () => {
    const file = path.join(tempDir(), 'truncated.pcap');
    copyFileSync(pcap('ndpi_cicids2017_webattack_sqli.pcap'), file);
    const fd = openSync(file, 'r+');
    ftruncateSync(fd, 20000); // mid-record
    closeSync(fd);
    const err = await rejection(replayFile(file));
    expect(err.code).to.equal('capture_file_corrupt');
    expect(err.message).to.match(/truncated/i);
  });

  it('reports the pcapng libpcap 1.10 refuses (per-interface snapshot lengths) as capture_file_corrupt', async () => {
    const err = await rejection(replayFile(pcap('zeek_pcapng_126_idbs_mixed_linktypes.pcapng')));
    expect(err.code).to.equal('capture_file_corrupt');
    expect(err.message).to.contain('snapshot length');
  });

  it('rejects an invalid BPF filter with capture_bad_filter', async () => {
    const err = await rejection(replayFile(pcap('ndpi_cicids2017_webattack_sqli.pcap'), { filter: 'tcp port banana' }));
    expect(err.code).to.equal('capture_bad_filter');
    expect(err.message).to.contain('tcp port banana');
  });

  it('applies a BPF filter to a file', async () => {
    const all = await replayFile(pcap('sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap'));
    const dns = await replayFile(pcap('sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap'), { filter: 'udp port 53' });
    const expected = all.flows.filter((f) => f.protocol === 17 && (f.srcPort === 53 || f.dstPort === 53));
    expect(dns.flows.length).to.equal(expected.length).and.to.be.greaterThan(0);
    expect(dns.flows.every((f) => f.protocol === 17 && (f.srcPort === 53 || f.dstPort === 53))).to.equal(true);
    expect(dns.stats.packets).to.equal(expected.reduce((a, f) => a + f.packets, 0));
  });

  it('is deterministic: two replays give identical flows', async () => {
    const a = await replayFile(pcap('sv_eth_lan_dns_icmp_icmpv6_smb.pcap'));
    const b = await replayFile(pcap('sv_eth_lan_dns_icmp_icmpv6_smb.pcap'));
    expect(b.flows).to.deep.equal(a.flows);
  });

  it('reads nanosecond and big-endian pcap files (rewritten here from a microsecond little-endian fixture)', async () => {
    const src = readFileSync(pcap('ndpi_cicids2017_webattack_sqli.pcap'));
    expect(src.readUInt32LE(0)).to.equal(0xa1b2c3d4); // µs, little-endian
    const dir = tempDir();
    // the same records with ns timestamps (+789 ns each), and the same records in big-endian byte order
    const ns = Buffer.from(src);
    const be = Buffer.from(src);
    ns.writeUInt32LE(0xa1b23c4d, 0);
    be.writeUInt32BE(0xa1b2c3d4, 0);
    be.writeUInt16BE(src.readUInt16LE(4), 4);
    be.writeUInt16BE(src.readUInt16LE(6), 6);
    for (const off of [8, 12, 16, 20]) be.writeUInt32BE(src.readUInt32LE(off), off);
    let packets = 0;
    for (let off = 24; off < src.length;) {
      const caplen = src.readUInt32LE(off + 8);
      ns.writeUInt32LE(src.readUInt32LE(off + 4) * 1000 + 789, off + 4);
      for (let k = 0; k < 16; k += 4) be.writeUInt32BE(src.readUInt32LE(off + k), off + k);
      off += 16 + caplen;
      packets++;
    }
    writeFileSync(path.join(dir, 'ns.pcap'), ns);
    writeFileSync(path.join(dir, 'be.pcap'), be);
    const base = await replayFile(pcap('ndpi_cicids2017_webattack_sqli.pcap'));
    const fromNs = await replayFile(path.join(dir, 'ns.pcap'));
    const fromBe = await replayFile(path.join(dir, 'be.pcap'));
    expect(packets).to.equal(94);
    expect(fromBe.flows).to.deep.equal(base.flows);
    expect(fromNs.stats.tsDigits).to.equal(9);
    expect(fromNs.flows.map((f) => f.firstSeen)).to.deep.equal(base.flows.map((f) => f.firstSeen.replace('Z', '789Z')));
    expect(fromNs.flows.map((f) => [f.packets, f.bytes, f.durationUs])).to.deep.equal(base.flows.map((f) => [f.packets, f.bytes, f.durationUs]));
  });

  it('reads every supported link type (DLT in stats.linkType) and counts per protocol', async () => {
    const cases: [string, number][] = [
      ['sv_linux_sll_log4shell_exploit.pcap', 113],
      ['sv_linux_sll2_gro_64k_packets.pcap', 276],
      ['sv_rawip_dlt101_tcp_tls.pcap', 12], // LINKTYPE_RAW 101 is DLT_RAW 12 on Linux
      ['sv_linktype_ipv4_228_dnp3_flood.pcap', 228],
      ['sv_null_loopback_smb.pcap', 0],
      ['zeek_pcapng_two_interfaces.pcapng', 1],
    ];
    for (const [name, dlt] of cases) {
      const r = await replayFile(pcap(name));
      expect(r.stats.linkType, name).to.equal(dlt);
      expect(r.flows.length, name).to.be.greaterThan(0);
      const protoPackets = Object.values(r.stats.protocols).reduce((a, p) => a + p.packets, 0);
      const errors = Object.values(r.stats.decodeErrors).reduce((a, n) => a + n, 0);
      expect(protoPackets + errors, name).to.equal(r.stats.packets);
    }
  });

  it('keeps the same 5-tuple on different VLANs apart (VLAN collisions fixture: three flows)', async () => {
    const r = await replayFile(pcap('zeek_vlan_collisions_same_5tuple.pcap'));
    expect(r.flows).to.have.length(3);
    const tuples = new Set(r.flows.map((f) => `${f.srcIp}:${f.srcPort}-${f.dstIp}:${f.dstPort}/${f.protocol}`));
    expect(tuples.size).to.equal(1);
    expect(r.flows.map((f) => [f.vlanOuter, f.vlanInner]).sort()).to.deep.equal([
      [0, 0],
      [10, 20],
      [42, 0],
    ]);
  });

  it('gives IP-layer bytes from the length fields and full-precision ISO timestamps', async () => {
    const r = await replayFile(pcap('ndpi_cicids2017_webattack_sqli.pcap'));
    const f = r.flows.find((x) => x.srcPort === 36196) as FlowRecord;
    // SYN 60 + SYN/ACK 60 + 9 packets: the SYNs carry 40 B TCP headers, the rest 32 B + payload (447 + 530)
    expect(f.bytes).to.equal(60 * 2 + 52 * 9 + 447 + 530);
    expect(f.firstSeen).to.equal('2017-07-06T13:40:07.419016Z');
    expect(f.lastSeen).to.equal('2017-07-06T13:40:12.425928Z');
    expect(f.firstSeenMs).to.be.closeTo(Date.parse('2017-07-06T13:40:07.419Z') + 0.016, 1e-3);
    expect(f.durationUs).to.equal(5006912);
  });

  it('records the first 8 packets (sizes, directions, IATs)', async () => {
    const r = await replayFile(pcap('ndpi_cicids2017_webattack_sqli.pcap'));
    const f = r.flows.find((x) => x.srcPort === 36196) as FlowRecord;
    expect(f.earlyCount).to.equal(8);
    expect(f.earlySizes).to.deep.equal([60, 60, 52, 499, 52, 582, 52, 52]);
    expect(f.earlyDirections).to.deep.equal([0, 1, 0, 0, 1, 1, 0, 1]);
    expect(f.earlyIatUs).to.deep.equal([0, 131, 1311, 4, 92, 3578, 596, 5000415]);
    const short = (await replayFile(pcap('zeek_pcapng_two_interfaces.pcapng'))).flows[0];
    expect(short.earlyCount).to.equal(short.packets).and.to.equal(short.earlySizes.length);
  });

  it('pairs ICMP echo requests and replies into one flow with type/code as ports', async () => {
    const r = await replayFile(pcap('sv_eth_lan_dns_icmp_icmpv6_smb.pcap'));
    const echo = r.flows.filter((f) => f.protocol === 1 && f.srcPort === 8);
    expect(echo.length).to.be.greaterThan(0);
    for (const f of echo) {
      expect(f.dstPort).to.equal(0);
      expect(f.fwdPackets).to.be.greaterThan(0);
    }
    expect(echo.some((f) => f.bwdPackets > 0)).to.equal(true);
  });

  it('attributes later IPv4 fragments to the flow of their first fragment', async () => {
    const r = await replayFile(pcap('zeek_dns_v4_v6_ipv4_fragments.pcap'));
    expect(r.stats.fragmentsAttributed).to.equal(4);
    expect(r.stats.decodeErrors.fragment_no_flow).to.equal(0);
  });

  it('evicts the oldest flow when maxFlows is reached, counting it and losing no packet', async () => {
    const full = await replayFile(pcap('ndpi_nmap_syn_portscan.pcap'));
    const small = await replayFile(pcap('ndpi_nmap_syn_portscan.pcap'), { maxFlows: 100 });
    expect(small.stats.flowsEvicted).to.be.greaterThan(1000);
    expect(small.flows.filter((f) => f.endReason === 'evicted')).to.have.length(small.stats.flowsEvicted);
    const sum = (fl: FlowRecord[]): number => fl.reduce((a, f) => a + f.packets, 0);
    expect(sum(small.flows)).to.equal(sum(full.flows));
    expect(small.stats.flowsActive).to.equal(0);
  });

  it('ends flows on the idle timeout in packet time', async () => {
    // SMB over 387 s of capture time: with a 5 s idle timeout the quiet gaps split flows
    const base = await replayFile(pcap('sv_null_loopback_smb.pcap'));
    const r = await replayFile(pcap('sv_null_loopback_smb.pcap'), { idleTimeoutSec: 5 });
    expect(base.flows.filter((f) => f.endReason === 'idle')).to.have.length(0);
    expect(r.flows.length).to.be.greaterThan(base.flows.length);
    expect(r.flows.filter((f) => f.endReason === 'idle').length).to.be.greaterThan(0);
    const sum = (fl: FlowRecord[]): number => fl.reduce((a, f) => a + f.packets, 0);
    expect(sum(r.flows)).to.equal(sum(base.flows));
  });

  it('ends flows on the active timeout', async () => {
    const r = await replayFile(pcap('zeek_quic_chromium_ipv6.pcap'), { activeTimeoutSec: 0.5 });
    const base = await replayFile(pcap('zeek_quic_chromium_ipv6.pcap'));
    expect(base.flows).to.have.length(1);
    expect(r.flows.length).to.be.greaterThan(1);
    expect(r.flows.some((f) => f.endReason === 'active')).to.equal(true);
    for (const f of r.flows) expect(f.durationUs).to.be.lessThan(500_000);
  });

  it('emits snapshots of long-lived flows when asked, repeating the flow id', async () => {
    const r = await replayFile(pcap('zeek_quic_chromium_ipv6.pcap'), { snapshotIntervalSec: 0.5 });
    expect(r.flows).to.have.length(1);
    expect(r.snapshots.length).to.be.greaterThan(0);
    expect(r.stats.snapshots).to.equal(r.snapshots.length);
    for (const s of r.snapshots) {
      expect(s.id).to.equal(r.flows[0].id);
      expect(s.packets).to.be.lessThan(r.flows[0].packets);
    }
  });
});

describe('Sensor', () => {
  it('start()/stop() are idempotent and stats() keeps the final counters', async () => {
    const sensor = createSensor();
    expect(sensor.running).to.equal(false);
    const idle = await sensor.stop();
    expect(idle.packets).to.equal(0);
    const flows: FlowRecord[] = [];
    sensor.on('flows', (b) => flows.push(...b));
    const source = { kind: 'file' as const, path: pcap('sv_ipv6_dos_hbh_frag_ext_headers.pcap'), speed: 0 };
    await sensor.start(source);
    await sensor.start(source); // no second session
    expect(sensor.running).to.equal(true);
    expect(sensor.source).to.deep.equal(source);
    const [a, b] = await Promise.all([sensor.stop(), sensor.stop()]);
    expect(a).to.deep.equal(b);
    expect(sensor.running).to.equal(false);
    expect(sensor.stats()).to.deep.equal(a);
    expect(a.flows).to.equal(flows.length);
    expect(a.flowsActive).to.equal(0);
    expect(a.batchesDropped).to.equal(0);
  });

  it('never drops on replay: a slow consumer makes the capture thread wait', async () => {
    const sensor = createSensor();
    let delivered = 0;
    let batches = 0;
    sensor.on('flows', (b) => {
      delivered += b.length;
      batches++;
      const until = Date.now() + 2;
      while (Date.now() < until) {
        // a slow consumer
      }
    });
    const ended = new Promise<SensorStats>((resolve) => sensor.on('end', resolve));
    await sensor.start({ kind: 'file', path: pcap('ndpi_nmap_syn_portscan.pcap') }, { batchFlows: 10, _queueDepth: 1, snapshotIntervalSec: 0 });
    const stats = await ended;
    expect(stats.batchesDropped).to.equal(0);
    expect(delivered).to.equal(1994);
    expect(stats.flows).to.equal(1994);
    expect(batches).to.equal(stats.batchesDelivered).and.to.be.at.least(199);
  });

  it('can be started again after it ended, and emits end with the final stats', async () => {
    const sensor = createSensor();
    for (let i = 0; i < 2; i++) {
      const ended = new Promise<number>((resolve) => {
        const onEnd = (s: { packets: number }): void => {
          sensor.off('end', onEnd);
          resolve(s.packets);
        };
        sensor.on('end', onEnd);
      });
      await sensor.start({ kind: 'file', path: pcap('zeek_ssh_password_guessing.pcap') });
      expect(await ended).to.equal(431);
    }
  });

  it('emits periodic stats while a paced replay runs, and stop() ends it early', async () => {
    const sensor = createSensor();
    const seen: number[] = [];
    sensor.on('stats', (s) => seen.push(s.packets));
    // 3519 packets over 387 s of capture time: paced at x1 the replay would take that long
    await sensor.start({ kind: 'file', path: pcap('sv_null_loopback_smb.pcap'), speed: 1 }, { statsIntervalMs: 20 });
    await new Promise((r) => setTimeout(r, 300));
    const final = await sensor.stop();
    expect(seen.length).to.be.greaterThan(0);
    expect(final.packets).to.be.greaterThan(0).and.lessThan(3519);
    expect(final.flowsActive).to.equal(0); // flows in progress are flushed
  });

  it('throws RangeError on nonsense options (programmer error)', async () => {
    const sensor = createSensor();
    let err: unknown;
    try {
      await sensor.start({ kind: 'file', path: pcap('zeek_ssh_password_guessing.pcap') }, { maxFlows: -1 });
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(RangeError);
    expect(sensor.running).to.equal(false);
  });
});

describe('listInterfaces()', () => {
  it('lists devices with names and flags, including the loopback', () => {
    const devices = listInterfaces();
    const lo = devices.find((d) => d.loopback);
    expect(lo, 'a loopback device').to.not.equal(undefined);
    expect(lo!.name).to.be.a('string').and.not.equal('');
    expect(lo!.addresses).to.be.an('array');
  });
});
