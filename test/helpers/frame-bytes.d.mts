/** Types of frame-bytes.mjs (plain JavaScript so that the capture recipes run with bare `node`). */

export declare const TCP_FLAGS: Readonly<{ FIN: number; SYN: number; RST: number; PSH: number; ACK: number }>;
export declare function ipv4Bytes(text: string): Buffer;
export declare function ipv6Bytes(text: string): Buffer;
export declare function macBytes(text: string): Buffer;
export declare function ethernet(dst: string, src: string, etherType: number): Buffer;
export declare function checksum(buf: Buffer): number;

export interface TcpSegment {
  src: string;
  dst: string;
  sport: number;
  dport: number;
  seq: number;
  ack: number;
  flags: number;
  payload?: Buffer;
  /** Receive window (default 64240). */
  window?: number;
  /** IPv4 time to live (default 64). */
  ttl?: number;
}
export declare function ipv4TcpFrame(eth: Buffer, segment: TcpSegment): Buffer;

export interface Ipv6Packet {
  src: string;
  dst: string;
  next: number;
  payload: Buffer;
  /** Default 64. */
  hopLimit?: number;
}
export declare function ipv6Frame(eth: Buffer, packet: Ipv6Packet): Buffer;

/** One record of a pcap file: time in µs since the epoch, the captured bytes, and the length on the wire. */
export interface PcapFrame {
  us: number | bigint;
  frame: Buffer;
  origLen?: number;
}
export declare function classicPcap(packets: readonly PcapFrame[], options?: { snaplen?: number }): Buffer;

export declare function seededRandom(seed: number): { random: () => number; bytes: (n: number) => Buffer };
