/** Sums of SensorStats across capture sessions (each session's counters start at zero). */
import type { SensorStats } from '../native/types.js';

/** `a + b` field by field; `flowsActive` is a gauge and is taken from `b`. */
export function addSensorStats(a: SensorStats, b: SensorStats): SensorStats {
  const protocols: SensorStats['protocols'] = {};
  for (const src of [a.protocols, b.protocols]) {
    for (const [name, p] of Object.entries(src)) {
      const t = (protocols[name] ??= { packets: 0, bytes: 0, flows: 0 });
      t.packets += p.packets;
      t.bytes += p.bytes;
      t.flows += p.flows;
    }
  }
  const decodeErrors: Record<string, number> = { ...a.decodeErrors };
  for (const [k, v] of Object.entries(b.decodeErrors)) decodeErrors[k] = (decodeErrors[k] ?? 0) + v;
  return {
    packets: a.packets + b.packets,
    bytes: a.bytes + b.bytes,
    flows: a.flows + b.flows,
    flowsActive: b.flowsActive,
    flowsEvicted: a.flowsEvicted + b.flowsEvicted,
    protocols,
    decodeErrors,
    pcap: {
      received: a.pcap.received + b.pcap.received,
      dropped: a.pcap.dropped + b.pcap.dropped,
      ifDropped: a.pcap.ifDropped + b.pcap.ifDropped,
    },
    batchesDelivered: a.batchesDelivered + b.batchesDelivered,
    batchesDropped: a.batchesDropped + b.batchesDropped,
  };
}
