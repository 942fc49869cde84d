/**
 * The EVE JSON export (`VIGIL_EVE_FILE`): every flow the pipeline stores becomes a `flow` record, every alert raised
 * (and every alert whose severity rises) an `alert` record, appended to one file through {@link EveWriter}.
 *
 * Flows arrive through the pipeline's `onStored` hook, synchronously, before detection sees the batch: each record is
 * encoded at once (nothing keeps a column-backed record beyond its batch). Alerts arrive on the event bus. An alert
 * record carries the Community ID and `flow_id` of the latest flow the exporter saw that matches the alert's endpoints
 * most closely (its five-tuple, else its service, else its host pair, else its source), so a SIEM can pivot from the
 * alert to the flow records of the same sensor and to other sensors' records of the same flow. The matches are kept in
 * bounded maps ({@link LINK_CAPACITY} entries each).
 */
import { alertViewSchema, severityRank, type Severity } from '../domain/alert.js';
import type { EventBus } from '../events.js';
import type { FlowRecord } from '../native/flow-record.js';
import { alertToEve, flowToEve, type AlertFlowLink } from './eve-records.js';
import { EveWriter, type EveWriterStats } from './eve-writer.js';

/** Entries per endpoint map of alert -> flow links. */
export const LINK_CAPACITY = 20_000;

/** What {@link EveExporter} needs. */
export interface EveExporterDeps {
  file: string;
  maxBytes: number;
  keep: number;
  queueBytes: number;
  /** Alerts are read from its `alert` events. */
  events: EventBus;
  log?: (message: string, err?: unknown) => void;
}

/** The export's counters (`/api/health` `eve`). */
export interface EveExportStats extends EveWriterStats {
  file: string;
  /** Records queued since start, by kind (written or dropped later: see `written`, `dropped`). */
  flows: number;
  alerts: number;
}

/**
 * Suricata-style `flow_id`: a 53-bit number derived from the flow's identity and first packet time (two FNV-1a hashes
 * of its text, 21 + 32 bits), the same for every snapshot of one flow and for its alerts, and distinct across capture
 * sessions (Vigil's own flow ids restart with each session). Not a security boundary: an identifier, as Suricata's is.
 */
export function eveFlowId(f: Pick<FlowRecord, 'srcIp' | 'srcPort' | 'dstIp' | 'dstPort' | 'protocol' | 'vlanOuter' | 'vlanInner' | 'firstSeenMs'>): number {
  const key = `${f.srcIp}|${f.srcPort}|${f.dstIp}|${f.dstPort}|${f.protocol}|${f.vlanOuter}|${f.vlanInner}|${Math.round(f.firstSeenMs * 1000)}`;
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (a >>> 13);
  }
  return (a >>> 11) * 2 ** 32 + (b >>> 0);
}

/** A Map that forgets its least recently set entry past `capacity`. */
class BoundedMap<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly capacity: number) {}
  get(key: string): V | undefined {
    return this.map.get(key);
  }
  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as string);
  }
}

export class EveExporter {
  private readonly writer: EveWriter;
  private readonly file: string;
  private readonly counts = { flows: 0, alerts: 0 };
  private readonly links = [
    new BoundedMap<AlertFlowLink>(LINK_CAPACITY),
    new BoundedMap<AlertFlowLink>(LINK_CAPACITY),
    new BoundedMap<AlertFlowLink>(LINK_CAPACITY),
    new BoundedMap<AlertFlowLink>(LINK_CAPACITY),
  ];
  /** The severity last written per alert id, so an update is written only when it raises the severity. */
  private readonly written = new BoundedMap<Severity>(LINK_CAPACITY);
  private readonly unsubscribe: () => void;
  private readonly log: EveExporterDeps['log'];

  constructor(deps: EveExporterDeps) {
    this.file = deps.file;
    this.log = deps.log;
    this.writer = new EveWriter({ file: deps.file, maxBytes: deps.maxBytes, keep: deps.keep, queueBytes: deps.queueBytes, log: deps.log });
    this.unsubscribe = deps.events.on('alert', (e) => {
      if (e.action === 'created' || e.action === 'updated') this.onAlert(e.alert);
    });
  }

  /** Encodes and queues one `flow` record per flow (the pipeline's `onStored` hook; synchronous, never waits). */
  onFlows(flows: readonly FlowRecord[]): void {
    for (const f of flows) {
      const flowId = eveFlowId(f);
      this.writer.write(JSON.stringify(flowToEve(f, flowId)));
      this.counts.flows++;
      const link: AlertFlowLink = { communityId: f.communityId ?? null, flowId };
      const [exact, service, pair, host] = this.links as [
        BoundedMap<AlertFlowLink>,
        BoundedMap<AlertFlowLink>,
        BoundedMap<AlertFlowLink>,
        BoundedMap<AlertFlowLink>,
      ];
      exact.set(`${f.srcIp}|${f.srcPort}|${f.dstIp}|${f.dstPort}|${f.protocol}`, link);
      service.set(`${f.srcIp}|${f.dstIp}|${f.dstPort}|${f.protocol}`, link);
      pair.set(`${f.srcIp}|${f.dstIp}`, link);
      host.set(f.srcIp, link);
    }
  }

  /** The export's counters now. */
  stats(): EveExportStats {
    return { file: this.file, ...this.counts, ...this.writer.stats() };
  }

  /** Reopens the file at its path (SIGHUP, after logrotate moved it); resolves once reopened. */
  reopen(): Promise<void> {
    return this.writer.reopen();
  }

  /** Resolves when every record queued so far is written (or dropped). */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /** Stops listening for alerts, writes what is queued and closes the file. */
  async close(): Promise<void> {
    this.unsubscribe();
    await this.writer.close();
  }

  private onAlert(payload: Record<string, unknown>): void {
    const parsed = alertViewSchema.safeParse(payload);
    if (!parsed.success) {
      this.log?.('EVE export: an alert event did not match the alert view', parsed.error);
      return;
    }
    const alert = parsed.data;
    const before = this.written.get(String(alert.id));
    if (before !== undefined && severityRank(alert.severity) <= severityRank(before)) return;
    this.written.set(String(alert.id), alert.severity);
    this.writer.write(JSON.stringify(alertToEve(alert, this.linkFor(alert))));
    this.counts.alerts++;
  }

  /** The closest flow seen for the alert's endpoints (see the module comment), or null. */
  private linkFor(a: { srcIp: string; srcPort: number | null; dstIp: string | null; dstPort: number | null; protocol: number | null }): AlertFlowLink | null {
    const [exact, service, pair, host] = this.links as [
      BoundedMap<AlertFlowLink>,
      BoundedMap<AlertFlowLink>,
      BoundedMap<AlertFlowLink>,
      BoundedMap<AlertFlowLink>,
    ];
    if (a.dstIp !== null) {
      if (a.dstPort !== null && a.protocol !== null) {
        if (a.srcPort !== null) {
          const hit = exact.get(`${a.srcIp}|${a.srcPort}|${a.dstIp}|${a.dstPort}|${a.protocol}`);
          if (hit) return hit;
        }
        const hit = service.get(`${a.srcIp}|${a.dstIp}|${a.dstPort}|${a.protocol}`);
        if (hit) return hit;
      }
      const hit = pair.get(`${a.srcIp}|${a.dstIp}`) ?? pair.get(`${a.dstIp}|${a.srcIp}`);
      if (hit) return hit;
    }
    return host.get(a.srcIp) ?? null;
  }
}
