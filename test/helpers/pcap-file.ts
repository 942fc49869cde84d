/**
 * Classic pcap files for tests: write Ethernet frames with their times, read a file's records back. The capture
 * core reads the files; these only spare each test its own copy of the 24-byte header and 16-byte record layout.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { classicPcap } from './frame-bytes.mjs';

/** One packet: its time (µs since the epoch) and its bytes (captured whole). */
export interface PcapPacket {
  us: number;
  frame: Buffer;
}

/** A classic little-endian microsecond pcap (LINKTYPE_ETHERNET, snaplen 65535) of `packets`: frame-bytes.mjs's, shared with the capture recipes. */
export { classicPcap };

/** One record of a pcap file: its time (ns) and its captured bytes. */
export interface PcapRecord {
  tsNs: bigint;
  frame: Buffer;
}

/** The records of a classic microsecond pcap file in either byte order, with its link type. */
export function readClassicPcap(file: string): { linkType: number; littleEndian: boolean; records: PcapRecord[] } {
  const b = readFileSync(file);
  const littleEndian = b.readUInt32LE(0) === 0xa1b2c3d4;
  const u32 = (o: number): number => (littleEndian ? b.readUInt32LE(o) : b.readUInt32BE(o));
  const records: PcapRecord[] = [];
  for (let off = 24; off + 16 <= b.length;) {
    const caplen = u32(off + 8);
    records.push({ tsNs: BigInt(u32(off)) * 1_000_000_000n + BigInt(u32(off + 4)) * 1000n, frame: b.subarray(off + 16, off + 16 + caplen) });
    off += 16 + caplen;
  }
  return { linkType: u32(20), littleEndian, records };
}

/** One TCP segment of a connection: its direction (true: client to server), payload and flags (PSH|ACK unless given). */
export interface Segment {
  fromClient: boolean;
  payload: Buffer;
  flags?: number;
}

/** How {@link tcpSessions} frames its connections; the defaults are those of the SMB captures. */
export interface TcpSessionOptions {
  /** Time of the first frame, µs since the epoch (frames follow 1 ms apart). */
  startUs?: number;
  /** The 14-byte Ethernet header of every frame. */
  eth?: Buffer;
  /** IPv4 time to live. */
  ttl?: number;
  /** The first connection's client port; each further connection takes the next. */
  clientPort?: number;
  /** Initial sequence numbers of the client and the server. */
  clientIsn?: number;
  serverIsn?: number;
}

/**
 * Writes `file`: TCP connections (handshake, `segments` in order, FINs) between `client` and `server` (IPv4 bytes), one
 * after another, with real sequence numbers and no checksums (the capture core does not check them).
 */
export function tcpSessions(
  file: string,
  client: number[],
  server: number[],
  sessions: Array<{ port: number; segments: Segment[] }>,
  options: TcpSessionOptions = {},
): void {
  const { startUs = 1_500_000_000_000_000, eth = Buffer.from('000c29aabbcc000c29ddeeff0800', 'hex'), ttl = 128, clientIsn = 1000, serverIsn = 9000 } = options;
  const frames: PcapPacket[] = [];
  let t = startUs;
  let clientPort = (options.clientPort ?? 49201) - 1;
  for (const { port, segments } of sessions) {
    clientPort++;
    let cseq = clientIsn;
    let sseq = serverIsn;
    const frame = (fromClient: boolean, flags: number, payload: Buffer): void => {
      const ip = Buffer.alloc(20);
      ip[0] = 0x45;
      ip.writeUInt16BE(40 + payload.length, 2);
      ip[8] = ttl;
      ip[9] = 6;
      Buffer.from(fromClient ? client : server).copy(ip, 12);
      Buffer.from(fromClient ? server : client).copy(ip, 16);
      const tcp = Buffer.alloc(20);
      tcp.writeUInt16BE(fromClient ? clientPort : port, 0);
      tcp.writeUInt16BE(fromClient ? port : clientPort, 2);
      tcp.writeUInt32BE(fromClient ? cseq : sseq, 4);
      tcp.writeUInt32BE(fromClient ? sseq : cseq, 8);
      tcp[12] = 5 << 4;
      tcp[13] = flags;
      tcp.writeUInt16BE(65535, 14);
      frames.push({ us: t, frame: Buffer.concat([eth, ip, tcp, payload]) });
      t += 1000;
      const advance = payload.length + (flags & 0x03 ? 1 : 0); // SYN and FIN take a sequence number
      if (fromClient) cseq += advance;
      else sseq += advance;
    };
    frame(true, 0x02, Buffer.alloc(0));
    frame(false, 0x12, Buffer.alloc(0));
    frame(true, 0x10, Buffer.alloc(0));
    for (const s of segments) frame(s.fromClient, s.flags ?? 0x18, s.payload);
    frame(true, 0x11, Buffer.alloc(0));
    frame(false, 0x11, Buffer.alloc(0));
    frame(true, 0x10, Buffer.alloc(0));
  }
  writeFileSync(file, classicPcap(frames));
}
