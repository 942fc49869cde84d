/**
 * Regression: the two evaluation captures issue 15's reporting set failed on, rebuilt by hand in their shapes and
 * replayed through the live path (Sensor -> SensorPipeline -> rules -> SQLite) with the real addon. The originals
 * (suricata-verify's covert_send6.pcap and tcp-session-syn-flood-drop-precedence/input.pcap) are not in the
 * repository; the packet counts, sizes and timing here are theirs, the hidden data is synthetic.
 * - IPv6 covert channel: 18 ICMPv6 echo requests whose destination options carry 1,200 bytes each in options of an
 *   experimental type (THC-IPv6 covert_send6 uses unassigned types the same way), answered by plain echo replies;
 *   beside them an MLDv2 report with the Router Alert and empty PadN Linux sends, which must raise nothing.
 * - Our own vigil_ipv6_ext_headers.pcap (test/fixtures/pcaps/own/make-ipv6-ext-headers-capture.mjs): a smaller
 *   channel (2,400 bytes) beside one packet of each oddity Suricata's decoder flags, and MLD.
 * - SYN burst: 200 SYNs from one source to 198.51.100.5:443 1 ms apart, never answered; beside them a flash crowd of
 *   150 clients completing their handshakes to 198.51.100.7:443 within 0.6 s, which must raise nothing.
 */
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ipv6Bytes, ipv6Frame as ipv6FrameOf } from '../../helpers/frame-bytes.mjs';
import { classicPcap, type PcapPacket } from '../../helpers/pcap-file.js';
import { tempDir } from '../../helpers/setup.js';
import { replayCapture } from './replay-helper.js';

const T0_US = 1_543_341_548_000_000;
const ETH_IPV6 = Buffer.from('64006a5b8f4a 64006a5b8eb3 86dd'.replace(/ /g, ''), 'hex');
const ETH_IPV4 = Buffer.from('64006a5b8f4a 64006a5b8eb3 0800'.replace(/ /g, ''), 'hex');
const ATTACKER6 = '2001:db8:2::5';
const VICTIM6 = '2001:db8:1::1';

/** Ethernet + IPv6 header (next header `next`, hop limit 255) + `payload`. */
const ipv6Frame = (src: string, dst: string, next: number, payload: Buffer): Buffer => ipv6FrameOf(ETH_IPV6, { src, dst, next, payload, hopLimit: 255 });

/** A destination options header (next header ICMPv6) carrying `data` in options of type 0x1e, padded with PadN. */
function destOptions(data: Buffer): Buffer {
  const options: Buffer[] = [];
  for (let off = 0; off < data.length; off += 255) {
    const chunk = data.subarray(off, off + 255);
    options.push(Buffer.from([0x1e, chunk.length]), chunk);
  }
  const used = 2 + options.reduce((n, b) => n + b.length, 0);
  const pad = (8 - (used % 8)) % 8;
  if (pad === 1) options.push(Buffer.from([0x00]));
  else if (pad > 1) options.push(Buffer.from([0x01, pad - 2]), Buffer.alloc(pad - 2));
  const total = used + pad;
  return Buffer.concat([Buffer.from([58, total / 8 - 1]), ...options]);
}

/** An ICMPv6 echo (type 128 request, 129 reply) with `seq`. */
const echo = (type: number, seq: number): Buffer => Buffer.from([type, 0, 0, 0, 0x12, 0x34, seq >> 8, seq & 0xff]);

/** Ethernet + IPv4 (protocol TCP) + a 20-byte TCP header with `flags` + `payload`. */
function tcpFrame(
  src: number[],
  dst: number[],
  sport: number,
  dport: number,
  flags: number,
  seq: number,
  ack: number,
  payload: Buffer = Buffer.alloc(0),
): Buffer {
  const ip = Buffer.alloc(20);
  ip[0] = 0x45;
  ip.writeUInt16BE(40 + payload.length, 2);
  ip[8] = 64;
  ip[9] = 6;
  Buffer.from(src).copy(ip, 12);
  Buffer.from(dst).copy(ip, 16);
  const tcp = Buffer.alloc(20);
  tcp.writeUInt16BE(sport, 0);
  tcp.writeUInt16BE(dport, 2);
  tcp.writeUInt32BE(seq, 4);
  tcp.writeUInt32BE(ack, 8);
  tcp[12] = 5 << 4;
  tcp[13] = flags;
  tcp.writeUInt16BE(64240, 14);
  return Buffer.concat([ETH_IPV4, ip, tcp, payload]);
}

describe('detection: IPv6 option covert channel and short SYN burst, replayed through the live path', function () {
  this.timeout(60_000);

  it('covert_send6 shape -> one high exfiltration alert with the hidden bytes; MLD beside it -> nothing', async () => {
    const packets: PcapPacket[] = [];
    const secret = Buffer.from('OPENSSL(1) openssl - OpenSSL command line tool. '.repeat(25).slice(0, 1200));
    for (let seq = 0; seq < 18; seq++) {
      const at = T0_US + seq * 160;
      packets.push({ us: at, frame: ipv6Frame(ATTACKER6, VICTIM6, 60, Buffer.concat([destOptions(secret), echo(128, seq)])) });
      packets.push({ us: at + 80, frame: ipv6Frame(VICTIM6, ATTACKER6, 58, echo(129, seq)) });
    }
    // MLDv2 report from a Linux host: hop-by-hop Router Alert (MLD) + PadN of length 0, then one address record.
    const hopByHop = Buffer.from([58, 0, 0x05, 0x02, 0x00, 0x00, 0x01, 0x00]);
    const mld = Buffer.concat([Buffer.from([143, 0, 0, 0, 0, 0, 0, 1, 4, 0, 0, 0]), ipv6Bytes('ff02::1:ff00:5')]);
    for (let k = 0; k < 4; k++) packets.push({ us: T0_US + 5000 + k * 400_000, frame: ipv6Frame('fe80::5', 'ff02::16', 0, Buffer.concat([hopByHop, mld])) });
    const file = path.join(tempDir(), 'ipv6-covert.pcap');
    writeFileSync(file, classicPcap(packets));

    const r = await replayCapture(file, { model: null });
    const carrier = r.flows.find((f) => f.srcIp === ATTACKER6);
    expect(carrier?.ipv6Options).to.deep.equal({
      packets: 18,
      anomalyPackets: 18,
      anomalies: ['unknown_option'],
      fwdCovertBytes: 18 * 1200,
      bwdCovertBytes: 0,
      maxCovertBytes: 1200,
    });
    expect(r.flows.find((f) => f.srcIp === 'fe80::5')?.ipv6Options).to.deep.include({ packets: 4, anomalies: ['zero_length_padn'], fwdCovertBytes: 0 });
    expect(r.alerts.map((a) => [a.category, a.severity, a.src_ip, a.dst_ip])).to.deep.equal([['exfiltration', 'high', ATTACKER6, VICTIM6]]);
    const details = JSON.parse(r.alerts[0]!.details) as Record<string, unknown>;
    expect(details).to.deep.include({
      kind: 'ipv6_option_covert_channel',
      covertBytes: 21_600,
      packets: 18,
      maxPacketBytes: 1200,
      anomalies: ['unknown_option'],
    });
    expect(r.alerts[0]!.count).to.equal(21_600);
  });

  it('own/vigil_ipv6_ext_headers.pcap -> one medium alert for the options channel; single oddities and MLD -> none', async () => {
    const r = await replayCapture('own/vigil_ipv6_ext_headers.pcap', { model: null });
    const options = Object.fromEntries(r.flows.map((f) => [`${f.srcIp} ${f.protocol}`, f.ipv6Options]));
    expect(options).to.deep.equal({
      'fe80::5 58': { packets: 2, anomalyPackets: 2, anomalies: ['zero_length_padn'], fwdCovertBytes: 0, bwdCovertBytes: 0, maxCovertBytes: 0 },
      '2001:db8:2::5 58': { packets: 6, anomalyPackets: 6, anomalies: ['unknown_option'], fwdCovertBytes: 2400, bwdCovertBytes: 0, maxCovertBytes: 400 },
      // Non-zero PadN (4 bytes), an overrunning option (6), three headers, type 0 routing, 14 padding bytes, Home Address.
      '2001:db8:3::7 58': {
        packets: 5,
        anomalyPackets: 5,
        anomalies: ['only_padding', 'padn_non_zero', 'bad_option_length', 'duplicate_header', 'routing_type_0', 'excess_padding'],
        fwdCovertBytes: 10,
        bwdCovertBytes: 0,
        maxCovertBytes: 6,
      },
      '2001:db8:3::7 59': { packets: 0, anomalyPackets: 1, anomalies: ['data_after_none'], fwdCovertBytes: 16, bwdCovertBytes: 0, maxCovertBytes: 16 },
    });
    expect(r.alerts.map((a) => [a.category, a.severity, a.src_ip, a.dst_ip, a.count])).to.deep.equal([
      ['exfiltration', 'medium', '2001:db8:2::5', VICTIM6, 2400],
    ]);
  });

  it('200 SYNs in 0.2 s to one service -> one dos alert (syn_burst); a flash crowd to another -> nothing', async () => {
    const packets: PcapPacket[] = [];
    const attacker = [192, 0, 2, 10];
    const victim = [198, 51, 100, 5];
    for (let i = 0; i < 200; i++) packets.push({ us: T0_US + i * 1000, frame: tcpFrame(attacker, victim, 40000 + i, 443, 0x02, 1000 + i, 0) });
    const server = [198, 51, 100, 7];
    for (let c = 0; c < 150; c++) {
      const client = [10, 1, 0, c + 1];
      const t = T0_US + c * 4_000;
      const request = Buffer.from('GET / HTTP/1.1\r\nHost: example.test\r\n\r\n');
      const steps: Array<[boolean, number, Buffer?]> = [
        [true, 0x02],
        [false, 0x12],
        [true, 0x10],
        [true, 0x18, request],
        [false, 0x18, Buffer.from('HTTP/1.1 204 No Content\r\n\r\n')],
        [true, 0x11],
        [false, 0x11],
        [true, 0x10],
      ];
      steps.forEach(([fromClient, flags, payload], k) => {
        const frame = fromClient
          ? tcpFrame(client, server, 50000 + c, 443, flags, 1, 1, payload)
          : tcpFrame(server, client, 443, 50000 + c, flags, 1, 1, payload);
        packets.push({ us: t + k * 100, frame });
      });
    }
    packets.sort((a, b) => a.us - b.us);
    const file = path.join(tempDir(), 'syn-burst.pcap');
    writeFileSync(file, classicPcap(packets));

    const r = await replayCapture(file, { model: null });
    expect(r.alerts.map((a) => [a.category, a.severity, a.src_ip, a.dst_ip, a.dst_port])).to.deep.equal([['dos', 'medium', '192.0.2.10', '198.51.100.5', 443]]);
    const details = JSON.parse(r.alerts[0]!.details) as Record<string, unknown>;
    expect(details).to.deep.include({ kind: 'syn_burst', halfOpenSynInWindow: 200, completedSynInWindow: 0, synPerSec: 200, sources: 1 });
    expect(r.alerts[0]!.count).to.equal(200);
  });
});
