// Frames and capture files written byte by byte, for the capture recipes (test/fixtures/pcaps/own/make-*.mjs,
// samples/make-demo-capture.mjs) and, through test/helpers/pcap-file.ts, the tests: addresses, the Internet checksum,
// Ethernet, IPv4 + TCP and IPv6 frames, and the classic pcap file. Plain JavaScript so that the recipes run with bare
// `node`; the types are in frame-bytes.d.mts. Field layouts: RFC 791 (IPv4), RFC 9293 (TCP), RFC 8200 (IPv6),
// RFC 1071 (checksum) and the libpcap file format (wiki.wireshark.org/Development/LibpcapFileFormat).

/** TCP flag bits (RFC 9293 §3.1). */
export const TCP_FLAGS = Object.freeze({ FIN: 0x01, SYN: 0x02, RST: 0x04, PSH: 0x08, ACK: 0x10 });

/** 4 bytes of a dotted-quad IPv4 address. */
export const ipv4Bytes = (text) => Buffer.from(text.split('.').map(Number));

/** 16 bytes of an IPv6 address (`::` allowed, no embedded IPv4). */
export function ipv6Bytes(text) {
  const [head = '', tail = ''] = text.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = tail === '' ? [] : tail.split(':');
  const groups = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  const b = Buffer.alloc(16);
  groups.forEach((g, i) => b.writeUInt16BE(Number.parseInt(g, 16), i * 2));
  return b;
}

/** 6 bytes of a MAC address written `aa:bb:cc:dd:ee:ff`. */
export const macBytes = (text) => Buffer.from(text.replaceAll(':', ''), 'hex');

/** The 14-byte Ethernet II header: destination MAC, source MAC, EtherType. */
export function ethernet(dst, src, etherType) {
  const type = Buffer.alloc(2);
  type.writeUInt16BE(etherType);
  return Buffer.concat([macBytes(dst), macBytes(src), type]);
}

/** The Internet checksum (RFC 1071) of `buf`: the one's complement of its one's-complement sum of 16-bit words. */
export function checksum(buf) {
  let sum = 0;
  for (let i = 0; i + 1 < buf.length; i += 2) sum += buf.readUInt16BE(i);
  if (buf.length % 2) sum += buf[buf.length - 1] << 8;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

/**
 * `eth` + a 20-byte IPv4 header (DF, identification 0, checksum set) + a 20-byte TCP header (checksum set) + `payload`.
 * Sequence numbers wrap at 2^32.
 */
export function ipv4TcpFrame(eth, { src, dst, sport, dport, seq, ack, flags, payload = Buffer.alloc(0), window = 64240, ttl = 64 }) {
  const tcp = Buffer.alloc(20);
  tcp.writeUInt16BE(sport, 0);
  tcp.writeUInt16BE(dport, 2);
  tcp.writeUInt32BE(seq >>> 0, 4);
  tcp.writeUInt32BE(ack >>> 0, 8);
  tcp[12] = 5 << 4;
  tcp[13] = flags;
  tcp.writeUInt16BE(window, 14);
  const pseudo = Buffer.concat([ipv4Bytes(src), ipv4Bytes(dst), Buffer.from([0, 6]), Buffer.from([(20 + payload.length) >> 8, (20 + payload.length) & 0xff])]);
  tcp.writeUInt16BE(checksum(Buffer.concat([pseudo, tcp, payload])), 16);
  const ip = Buffer.alloc(20);
  ip[0] = 0x45;
  ip.writeUInt16BE(20 + 20 + payload.length, 2);
  ip[6] = 0x40; // DF
  ip[8] = ttl;
  ip[9] = 6;
  ipv4Bytes(src).copy(ip, 12);
  ipv4Bytes(dst).copy(ip, 16);
  ip.writeUInt16BE(checksum(ip), 10);
  return Buffer.concat([eth, ip, tcp, payload]);
}

/** `eth` + a 40-byte IPv6 header (traffic class and flow label 0, first next header `next`) + `payload`. */
export function ipv6Frame(eth, { src, dst, next, payload, hopLimit = 64 }) {
  const h = Buffer.alloc(40);
  h[0] = 0x60;
  h.writeUInt16BE(payload.length, 4);
  h[6] = next;
  h[7] = hopLimit;
  ipv6Bytes(src).copy(h, 8);
  ipv6Bytes(dst).copy(h, 24);
  return Buffer.concat([eth, h, payload]);
}

/**
 * A classic little-endian microsecond pcap (LINKTYPE_ETHERNET) of `packets` in the order given: each `us` (µs since the
 * epoch, a number or a bigint), `frame` (captured whole) and `origLen` (the length on the wire; the frame's by default).
 */
export function classicPcap(packets, { snaplen = 65535 } = {}) {
  const header = Buffer.alloc(24);
  header.writeUInt32LE(0xa1b2c3d4, 0);
  header.writeUInt16LE(2, 4);
  header.writeUInt16LE(4, 6);
  header.writeUInt32LE(snaplen, 16);
  header.writeUInt32LE(1, 20); // LINKTYPE_ETHERNET
  const parts = [header];
  for (const { us, frame, origLen = frame.length } of packets) {
    const rec = Buffer.alloc(16);
    rec.writeUInt32LE(typeof us === 'bigint' ? Number(us / 1_000_000n) : Math.floor(us / 1e6), 0);
    rec.writeUInt32LE(typeof us === 'bigint' ? Number(us % 1_000_000n) : us % 1e6, 4);
    rec.writeUInt32LE(frame.length, 8);
    rec.writeUInt32LE(origLen, 12);
    parts.push(rec, frame);
  }
  return Buffer.concat(parts);
}

/** A deterministic byte source (the C library's linear congruential generator), so that a recipe makes the same bytes every run. */
export function seededRandom(seed) {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return { random, bytes: (n) => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256))) };
}
