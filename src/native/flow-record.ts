/**
 * One bidirectional flow as JS sees it: the contract between the capture core (producer, `src/native/`) and its
 * consumers (ML features, detectors, store, APIs). Field names map to CICFlowMeter columns where one exists
 * (see docs/flow-features.md); add fields freely, never rename these.
 *
 * Direction: `fwd` = from the initiator (the sender of the flow's first packet, `srcIp:srcPort`) to the responder,
 * `bwd` = the reverse. Times are microseconds (µs) unless the name says otherwise. "Length" fields follow
 * CICFlowMeter: L4 payload bytes per packet; `bytes`/`fwdBytes`/`bwdBytes` are IP-layer bytes from the IP length fields.
 */
export type FlowEndReason = 'idle' | 'active' | 'fin' | 'rst' | 'evicted' | 'flush' | 'snapshot';

export interface FlowRecord {
  /** Flow id, unique within one capture session (monotonic). Snapshots of an active flow repeat its id. */
  id: number;
  srcIp: string;
  srcPort: number;
  dstIp: string;
  dstPort: number;
  /** IANA protocol number (6 TCP, 17 UDP, 1 ICMP, 58 ICMPv6, ...). For ICMP/ICMPv6 srcPort=type, dstPort=code. */
  protocol: number;
  ipVersion: 4 | 6;
  /** Outer and inner VLAN id; 0 when absent. */
  vlanOuter: number;
  vlanInner: number;
  /** First/last packet time, epoch milliseconds (fractional: µs resolution kept). */
  firstSeenMs: number;
  lastSeenMs: number;
  /** First/last packet time as ISO 8601 with the capture's full precision (µs or ns), e.g. 2017-07-06T13:40:02.123456789Z. */
  firstSeen: string;
  lastSeen: string;
  /** lastSeen - firstSeen, µs (CIC "Flow Duration"). */
  durationUs: number;
  endReason: FlowEndReason;

  /** Packets and IP-layer bytes, both directions (CIC: Total Fwd Packet + Total Bwd packets). */
  packets: number;
  bytes: number;
  fwdPackets: number;
  bwdPackets: number;
  fwdBytes: number;
  bwdBytes: number;
  /** Sum of L4 payload bytes per direction (CIC "Total Length of Fwd/Bwd Packet"). */
  fwdPayloadBytes: number;
  bwdPayloadBytes: number;
  /** Sum of L3+L4 header bytes per direction (CIC "Fwd/Bwd Header Length"). */
  fwdHeaderBytes: number;
  bwdHeaderBytes: number;

  /** Per-packet L4 payload length statistics (bytes): overall and per direction. Std is the population std. */
  pktLenMin: number;
  pktLenMax: number;
  pktLenMean: number;
  pktLenStd: number;
  fwdPktLenMin: number;
  fwdPktLenMax: number;
  fwdPktLenMean: number;
  fwdPktLenStd: number;
  bwdPktLenMin: number;
  bwdPktLenMax: number;
  bwdPktLenMean: number;
  bwdPktLenStd: number;

  /** Inter-arrival times (µs): overall (Flow IAT), and per direction (Fwd/Bwd IAT, with totals). */
  iatMinUs: number;
  iatMaxUs: number;
  iatMeanUs: number;
  iatStdUs: number;
  fwdIatTotalUs: number;
  fwdIatMinUs: number;
  fwdIatMaxUs: number;
  fwdIatMeanUs: number;
  fwdIatStdUs: number;
  bwdIatTotalUs: number;
  bwdIatMinUs: number;
  bwdIatMaxUs: number;
  bwdIatMeanUs: number;
  bwdIatStdUs: number;

  /** TCP flag counts per direction. */
  fwdFin: number;
  fwdSyn: number;
  fwdRst: number;
  fwdPsh: number;
  fwdAck: number;
  fwdUrg: number;
  fwdEce: number;
  fwdCwr: number;
  bwdFin: number;
  bwdSyn: number;
  bwdRst: number;
  bwdPsh: number;
  bwdAck: number;
  bwdUrg: number;
  bwdEce: number;
  bwdCwr: number;
  /** TCP window of the first packet per direction (CIC "FWD/Bwd Init Win Bytes"); -1 when no TCP packet in that direction. */
  fwdInitWin: number;
  bwdInitWin: number;
  /** Fwd packets with at least 1 byte of payload (CIC "Fwd Act Data Pkts"); minimum fwd header size (CIC "Fwd Seg Size Min"). */
  fwdActDataPkts: number;
  fwdSegSizeMin: number;

  /** Active/idle periods (µs), CICFlowMeter style (activity timeout documented in docs/flow-features.md). */
  activeMinUs: number;
  activeMaxUs: number;
  activeMeanUs: number;
  activeStdUs: number;
  idleMinUs: number;
  idleMaxUs: number;
  idleMeanUs: number;
  idleStdUs: number;

  /** Early-flow features: the first up-to-8 packets. Sizes are IP-layer bytes; direction 0 = fwd, 1 = bwd;
   * IAT in µs from the previous packet (0 for the first). Arrays have length `earlyCount` (<= 8). */
  earlyCount: number;
  earlySizes: number[];
  earlyDirections: number[];
  earlyIatUs: number[];
}
