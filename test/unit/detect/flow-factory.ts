/** Test factory: a complete FlowRecord with neutral defaults (a small finished TCP session); override what matters. */
import type { FlowRecord } from '../../../src/native/flow-record.js';

let nextId = 1;

export function makeFlow(over: Partial<FlowRecord> = {}): FlowRecord {
  const firstSeenMs = over.firstSeenMs ?? 1_700_000_000_000;
  const durationUs = over.durationUs ?? 1000;
  const lastSeenMs = over.lastSeenMs ?? firstSeenMs + durationUs / 1000;
  const base: FlowRecord = {
    id: nextId++,
    srcIp: '10.0.0.2', srcPort: 40000, dstIp: '10.0.0.9', dstPort: 80, protocol: 6, ipVersion: 4, vlanOuter: 0, vlanInner: 0,
    firstSeenMs, lastSeenMs, firstSeen: new Date(firstSeenMs).toISOString(), lastSeen: new Date(lastSeenMs).toISOString(),
    durationUs, endReason: 'fin',
    packets: 10, bytes: 1500, fwdPackets: 5, bwdPackets: 5, fwdBytes: 600, bwdBytes: 900,
    fwdPayloadBytes: 300, bwdPayloadBytes: 600, fwdHeaderBytes: 200, bwdHeaderBytes: 200,
    pktLenMin: 0, pktLenMax: 300, pktLenMean: 90, pktLenStd: 100,
    fwdPktLenMin: 0, fwdPktLenMax: 200, fwdPktLenMean: 60, fwdPktLenStd: 80,
    bwdPktLenMin: 0, bwdPktLenMax: 300, bwdPktLenMean: 120, bwdPktLenStd: 110,
    iatMinUs: 10, iatMaxUs: 500, iatMeanUs: 111, iatStdUs: 50,
    fwdIatTotalUs: 900, fwdIatMinUs: 10, fwdIatMaxUs: 500, fwdIatMeanUs: 225, fwdIatStdUs: 60,
    bwdIatTotalUs: 900, bwdIatMinUs: 10, bwdIatMaxUs: 500, bwdIatMeanUs: 225, bwdIatStdUs: 60,
    fwdFin: 1, fwdSyn: 1, fwdRst: 0, fwdPsh: 1, fwdAck: 4, fwdUrg: 0, fwdEce: 0, fwdCwr: 0,
    bwdFin: 1, bwdSyn: 1, bwdRst: 0, bwdPsh: 1, bwdAck: 5, bwdUrg: 0, bwdEce: 0, bwdCwr: 0,
    fwdInitWin: 64240, bwdInitWin: 65160, fwdActDataPkts: 1, fwdSegSizeMin: 20,
    activeMinUs: 0, activeMaxUs: 0, activeMeanUs: 0, activeStdUs: 0, idleMinUs: 0, idleMaxUs: 0, idleMeanUs: 0, idleStdUs: 0,
    earlyCount: 0, earlySizes: [], earlyDirections: [], earlyIatUs: [],
  };
  return { ...base, ...over, firstSeenMs, lastSeenMs, durationUs };
}

/** A TCP SYN probe answered by RST (no payload either way). */
export function synProbe(src: string, dst: string, port: number, t: number): FlowRecord {
  return makeFlow({
    srcIp: src, dstIp: dst, dstPort: port, firstSeenMs: t, durationUs: 200, packets: 2, fwdPackets: 1, bwdPackets: 1,
    fwdPayloadBytes: 0, bwdPayloadBytes: 0, fwdSyn: 1, bwdSyn: 0, bwdRst: 1, fwdFin: 0, bwdFin: 0, fwdAck: 0, bwdAck: 1, fwdPsh: 0, bwdPsh: 0, endReason: 'rst',
  });
}
