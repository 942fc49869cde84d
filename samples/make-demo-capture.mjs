#!/usr/bin/env node
// Builds samples/demo.pcap, the capture `vigil start` replays when it cannot capture live (see samples/README.md):
// ordinary browsing with three real attacks laid over it, all aimed at the browsing machine (192.168.100.206).
//
//   browsing  test/fixtures/pcaps/sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap   as recorded (95.6 s)
//   scan      test/fixtures/pcaps/ndpi_nmap_syn_portscan.pcap                from +12 s (23 s): nmap SYN scan
//   brute     test/fixtures/pcaps/zeek_ssh_password_guessing.pcap            from +20 s (70 s): SSH password guessing
//   beacon    test/fixtures/pcaps/own/vigil_tls_beacon_jitter.pcap           from +3 s (75 s): TLS check-ins every 2 s
//
// The attacks were recorded between private or loopback addresses. So that the threat map has something to place,
// each attacker (or the beacon's server) is given a public stand-in address and the victim becomes the browsing
// machine; MAC addresses become the browsing machine's and its gateway's. The stand-ins (STAND_INS below) were
// picked only because the bundled geolocation database places them in different parts of the world: none of
// them attacked anyone. Only IPv4 frames of the attack captures are kept (their ARP and IPv6 neighbour traffic
// would name the lab's addresses). IPv4 header checksums are recomputed and TCP/UDP checksums adjusted for the new
// addresses (computed afresh where the whole segment was captured, else adjusted as RFC 1624 says), so the result
// reads as clean in Wireshark.
//
// Run: node samples/make-demo-capture.mjs   (deterministic: the same inputs give the same bytes; --check compares)
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { classicPcap } from '../test/helpers/frame-bytes.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, '..', 'test', 'fixtures', 'pcaps');

const DESKTOP = '192.168.100.206';
/** Public stand-ins for the attackers (see the header): address, and what the bundled database says of it. */
export const STAND_INS = {
  scanner: '64.13.134.52', // the scan capture's own public host (scanme.nmap.org in 2010), its role swapped
  bruteForcer: '185.220.101.34', // Berlin
  beaconServer: '139.59.1.10', // Bengaluru
};

/** Reads a classic pcap file (either byte order, micro- or nanosecond stamps) into frames with times in µs. */
function readPcap(file) {
  const buf = readFileSync(file);
  const magicLe = buf.readUInt32LE(0);
  const le = magicLe === 0xa1b2c3d4 || magicLe === 0xa1b23c4d;
  const magic = le ? magicLe : buf.readUInt32BE(0);
  if (magic !== 0xa1b2c3d4 && magic !== 0xa1b23c4d) throw new Error(`${file}: not a classic pcap file`);
  const nano = magic === 0xa1b23c4d;
  const u32 = (o) => (le ? buf.readUInt32LE(o) : buf.readUInt32BE(o));
  if (u32(20) !== 1) throw new Error(`${file}: link type ${u32(20)}, expected Ethernet`);
  const frames = [];
  for (let o = 24; o + 16 <= buf.length; ) {
    const sec = u32(o);
    const frac = u32(o + 4);
    const incl = u32(o + 8);
    const orig = u32(o + 12);
    if (o + 16 + incl > buf.length) throw new Error(`${file}: truncated record at byte ${o}`);
    const us = BigInt(sec) * 1_000_000n + BigInt(nano ? Math.floor(frac / 1000) : frac);
    frames.push({ us, orig, data: Buffer.from(buf.subarray(o + 16, o + 16 + incl)) });
    o += 16 + incl;
  }
  return frames;
}

const ipBytes = (text) => Buffer.from(text.split('.').map(Number));
const ipText = (b, o) => `${b[o]}.${b[o + 1]}.${b[o + 2]}.${b[o + 3]}`;

/** One's-complement sum of 16-bit words. */
function sum16(b, start, end) {
  let s = 0;
  for (let i = start; i + 1 < end; i += 2) s += b.readUInt16BE(i);
  if ((end - start) % 2 === 1) s += b[end - 1] << 8;
  return s;
}
const fold = (s) => {
  while (s > 0xffff) s = (s & 0xffff) + (s >>> 16);
  return s;
};

/** Offset of the IPv4 header in an Ethernet frame (after any 802.1Q tags), or -1. */
function ipv4Offset(f) {
  let o = 12;
  let type = f.readUInt16BE(o);
  while ((type === 0x8100 || type === 0x88a8) && o + 6 <= f.length) {
    o += 4;
    type = f.readUInt16BE(o);
  }
  return type === 0x0800 && o + 2 + 20 <= f.length ? o + 2 : -1;
}

/**
 * Rewrites one IPv4 frame's addresses (map: function (src, dst, srcPort, dstPort) -> [src, dst]) and MACs (the
 * desktop's MAC on its side, the gateway's on the other), keeping the checksums right.
 */
function rewrite(frame, map, macs) {
  const f = frame.data;
  const ip = ipv4Offset(f);
  if (ip < 0) return null;
  const ihl = (f[ip] & 0x0f) * 4;
  const proto = f[ip + 9];
  const fragOffset = f.readUInt16BE(ip + 6) & 0x1fff;
  const l4 = ip + ihl;
  const ports = (proto === 6 || proto === 17) && fragOffset === 0 && l4 + 4 <= f.length ? [f.readUInt16BE(l4), f.readUInt16BE(l4 + 2)] : [0, 0];
  const [src, dst] = map(ipText(f, ip + 12), ipText(f, ip + 16), ports[0], ports[1]);
  const before = sum16(f, ip + 12, ip + 20);
  ipBytes(src).copy(f, ip + 12);
  ipBytes(dst).copy(f, ip + 16);
  const after = sum16(f, ip + 12, ip + 20);
  // IPv4 header checksum, recomputed over the captured header.
  f.writeUInt16BE(0, ip + 10);
  f.writeUInt16BE(~fold(sum16(f, ip, ip + ihl)) & 0xffff, ip + 10);
  // TCP/UDP checksums cover the addresses through the pseudo-header: HC' = ~(~HC + ~m + m') (RFC 1624, eq. 3).
  const at = proto === 6 ? l4 + 16 : proto === 17 ? l4 + 6 : -1;
  const ipEnd = ip + f.readUInt16BE(ip + 2);
  if (at >= 0 && fragOffset === 0 && (f[ip + 6] & 0x20) === 0 && ipEnd <= f.length && at + 2 <= ipEnd) {
    // The whole segment is here: compute the checksum afresh (loopback and offloading senders leave it unset).
    f.writeUInt16BE(0, at);
    const pseudo = sum16(f, ip + 12, ip + 20) + proto + (ipEnd - l4);
    const c = ~fold(pseudo + sum16(f, l4, ipEnd)) & 0xffff;
    f.writeUInt16BE(proto === 17 && c === 0 ? 0xffff : c, at);
  } else if (at >= 0 && fragOffset === 0 && at + 2 <= f.length) {
    const old = f.readUInt16BE(at);
    if (!(proto === 17 && old === 0)) {
      // The four old address words m_i: sum of ~m_i = 4 * 0xffff - sum of m_i.
      const c = ~fold((~old & 0xffff) + (4 * 0xffff - before) + after) & 0xffff;
      f.writeUInt16BE(proto === 17 && c === 0 ? 0xffff : c, at);
    }
  }
  const desktopIsSource = src === DESKTOP;
  (desktopIsSource ? macs.desktop : macs.gateway).copy(f, 6);
  (desktopIsSource ? macs.gateway : macs.desktop).copy(f, 0);
  return frame;
}

/** The browsing machine's MAC and its gateway's, from the first IPv4 frame the machine sends. */
function lanMacs(frames) {
  for (const { data } of frames) {
    const ip = ipv4Offset(data);
    if (ip >= 0 && ipText(data, ip + 12) === DESKTOP) return { desktop: data.subarray(6, 12), gateway: data.subarray(0, 6) };
  }
  throw new Error('the browsing capture has no IPv4 frame from the desktop');
}

export function buildDemo() {
  const browsing = readPcap(path.join(fixtures, 'sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap'));
  const macs = lanMacs(browsing);
  const t0 = browsing[0].us;
  const overlays = [
    {
      file: 'ndpi_nmap_syn_portscan.pcap',
      at: 12,
      map: (s, d) => [s === '172.16.0.8' ? STAND_INS.scanner : DESKTOP, d === '172.16.0.8' ? STAND_INS.scanner : DESKTOP],
    },
    {
      file: 'zeek_ssh_password_guessing.pcap',
      at: 20,
      map: (s, d) => [s === '192.168.56.1' ? STAND_INS.bruteForcer : DESKTOP, d === '192.168.56.1' ? STAND_INS.bruteForcer : DESKTOP],
    },
    {
      // Recorded on loopback: both ends are 127.0.0.1, so the server side is the one on port 443.
      file: 'own/vigil_tls_beacon_jitter.pcap',
      at: 3,
      map: (_s, _d, sp) => (sp === 443 ? [STAND_INS.beaconServer, DESKTOP] : [DESKTOP, STAND_INS.beaconServer]),
    },
  ];
  const all = browsing.map((f, i) => ({ ...f, order: i }));
  let order = all.length;
  for (const o of overlays) {
    const frames = readPcap(path.join(fixtures, o.file));
    const first = frames[0].us;
    for (const f of frames) {
      const out = rewrite(f, o.map, macs);
      if (out === null) continue;
      all.push({ ...out, us: t0 + BigInt(o.at * 1_000_000) + (f.us - first), order: order++ });
    }
  }
  all.sort((a, b) => (a.us < b.us ? -1 : a.us > b.us ? 1 : a.order - b.order));
  return classicPcap(
    all.map((f) => ({ us: f.us, frame: f.data, origLen: Math.max(f.orig, f.data.length) })),
    { snaplen: 262144 },
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = path.join(here, 'demo.pcap');
  const bytes = buildDemo();
  if (process.argv.includes('--check')) {
    // The committed file must be what this recipe makes from the committed inputs (a test runs this).
    const same = Buffer.compare(readFileSync(out), bytes) === 0;
    process.stdout.write(same ? `${out} is up to date\n` : `${out} differs from what the recipe makes: run node samples/make-demo-capture.mjs\n`);
    process.exit(same ? 0 : 1);
  }
  writeFileSync(out, bytes);
  process.stdout.write(`wrote ${out}: ${bytes.length} bytes, sha256 ${createHash('sha256').update(bytes).digest('hex')}\n`);
}
