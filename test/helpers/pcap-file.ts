/**
 * Classic pcap files for tests: write Ethernet frames with their times, read a file's records back. The capture
 * core reads the files; these only spare each test its own copy of the 24-byte header and 16-byte record layout.
 */
import { readFileSync } from 'node:fs';

/** One packet: its time (µs since the epoch) and its bytes (captured whole). */
export interface PcapPacket {
  us: number;
  frame: Buffer;
}

/** A classic little-endian microsecond pcap (LINKTYPE_ETHERNET, snaplen 65535) of `packets`: frame-bytes.mjs's, shared with the capture recipes. */
export { classicPcap } from './frame-bytes.mjs';

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
