/**
 * Live traffic statistics of the running sensor: per-second and per-minute timelines of the sensor totals (kept in
 * memory and in the store's traffic buckets, so the 24-hour view survives restarts), and top talkers, top ports, top
 * domains (the flows' server names), top applications (their application labels), top programs (the processes that
 * owned their local sockets, live capture on Linux) and the direction split attributed
 * from flow records. A once-per-second tick closes the last second; listeners registered
 * with {@link LiveStats.onTick} run after it (the desktop API publishes its `stats` event there).
 */
import type { Clock } from '../clock.js';
import { localAddressClassifier } from '../net/classify.js';
import type { AppBy, FlowRecord } from '../native/flow-record.js';
import type { Store } from '../store/database.js';
import { addToBuckets, listBuckets, pruneBuckets } from '../store/repos/traffic.repo.js';
import type { MonitoringService } from './monitoring.js';

const SECOND_MS = 1000;
const MINUTE_MS = 60_000;
/** Per-second timeline length (5 minutes). */
const SECONDS_KEPT = 300;
/** Per-minute timeline length (24 hours). */
const MINUTES_KEPT = 1440;
/** Bound of the talker/port maps; when exceeded, only the top entries are kept. */
const MAX_KEYS = 50_000;
const KEEP_KEYS = 10_000;
/**
 * Bound of the domain and application maps (distinct names tracked). Past it the smallest are evicted: the map keeps
 * the {@link KEEP_NAMES} largest by bytes and the {@link KEEP_NAMES} largest by flows (their union), so both rankings
 * survive a flood of one-off names.
 */
export const MAX_NAMES = 10_000;
export const KEEP_NAMES = 2_500;
/** Longest server name kept (the capture core caps names at 255 bytes too). */
const MAX_NAME_LENGTH = 255;

/** Packets, bytes and flows of one bucket, talker, port or direction. */
export interface TrafficCounts {
  packets: number;
  bytes: number;
  flows: number;
}

/** A host's traffic: bytes it sent and received (`bytes` is their sum). */
export interface TalkerCounts extends TrafficCounts {
  ip: string;
  sentBytes: number;
  receivedBytes: number;
}

/** Traffic of the flows with one server name (`serverName`, lower case). */
export interface DomainCounts extends TrafficCounts {
  name: string;
}

/** Traffic of the flows with one application label, and how the label was found (content, or a port guess). */
export interface AppCounts extends TrafficCounts {
  app: string;
  by: AppBy;
}

/** Traffic of the flows of one program: its executable path (null when unknown) and process name. */
export interface ProgramCounts extends TrafficCounts {
  name: string | null;
  exe: string | null;
}

/** A flow's program as a key (executable path, else process name), or null when the flow has no process. */
export function programOf(f: Pick<FlowRecord, 'process'>): { key: string; name: string | null; exe: string | null } | null {
  const p = f.process;
  if (!p || (!p.exe && !p.name)) return null;
  const exe = p.exe ? p.exe.slice(0, 4096) : null;
  const name = p.name ? p.name.slice(0, MAX_NAME_LENGTH) : null;
  return { key: exe ?? `comm:${name ?? ''}`, name, exe };
}

/** A top list ranked two ways (copies). */
export interface RankedCounts<T> {
  byBytes: T[];
  byFlows: T[];
}

/** Traffic to one responder port. */
export interface PortCounts extends TrafficCounts {
  port: number;
  protocol: 'tcp' | 'udp';
}

/**
 * Traffic from the local side's point of view: outbound = sent by local hosts to remote ones, inbound = received from
 * remote; internal = local to local; external = neither end local (transit, replayed captures).
 */
export interface DirectionCounts {
  inbound: TrafficCounts;
  outbound: TrafficCounts;
  internal: TrafficCounts;
  external: TrafficCounts;
}

/** One timeline bucket: the counts of the second or minute starting at `startMs` (epoch ms). */
export interface TimelineBucket extends TrafficCounts {
  startMs: number;
}

/** Dependencies of {@link LiveStats}. */
export interface LiveStatsDeps {
  store: Store;
  /** Sensor totals summed over capture sessions (what the timelines count). */
  monitoring: Pick<MonitoringService, 'totals'>;
  clock: Clock;
  /** Which IPs are local (default: this machine's addresses and private ranges). */
  isLocal?: (ip: string) => boolean;
  log?: (message: string, err: unknown) => void;
}

const zero = (): TrafficCounts => ({ packets: 0, bytes: 0, flows: 0 });

function topN<T extends { bytes: number }>(map: Map<string, T>, n: number): Array<[string, T]> {
  return [...map.entries()].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, n);
}

function trim<T extends { bytes: number }>(map: Map<string, T>): void {
  if (map.size <= MAX_KEYS) return;
  const keep = topN(map, KEEP_KEYS);
  map.clear();
  for (const [k, v] of keep) map.set(k, v);
}

/** The `n` entries with the most flows (ties: more bytes first). */
function topByFlows<T extends TrafficCounts>(map: Map<string, T>, n: number): Array<[string, T]> {
  return [...map.entries()].sort((a, b) => b[1].flows - a[1].flows || b[1].bytes - a[1].bytes).slice(0, n);
}

/** Bounds a name map: past {@link MAX_NAMES} entries, keeps the {@link KEEP_NAMES} largest by bytes and by flows. */
function trimNames<T extends TrafficCounts>(map: Map<string, T>): void {
  if (map.size <= MAX_NAMES) return;
  const keep = new Map([...topN(map, KEEP_NAMES), ...topByFlows(map, KEEP_NAMES)]);
  map.clear();
  for (const [k, v] of keep) map.set(k, v);
}

function addCounts(bucket: TrafficCounts, bytes: number, packets: number, flows: number): void {
  bucket.bytes += bytes;
  bucket.packets += packets;
  bucket.flows += flows;
}

/** `tcp/PORT` and `udp/PORT` keys already built, by protocol * 65536 + port; cleared past 4,096. */
const portKeys = new Map<number, string>();

/** The port map's key of a TCP (6) or UDP (17) responder port: `tcp/443`, one shared string per port. */
function portKey(protocol: 6 | 17, port: number): string {
  const n = protocol * 65536 + port;
  let k = portKeys.get(n);
  if (k === undefined) {
    k = `${protocol === 6 ? 'tcp' : 'udp'}/${port}`;
    if (portKeys.size >= 4096) portKeys.clear();
    portKeys.set(n, k);
  }
  return k;
}

/** `app|by` keys already built, by label then by how it was found; cleared past 1,024 labels. */
const appKeys = new Map<string, Map<string, string>>();

/** The application map's key `app|by`: one shared string per pair instead of a concatenation per flow. */
function appKey(app: string, by: string): string {
  let byKey = appKeys.get(app);
  if (byKey === undefined) {
    if (appKeys.size >= 1024) appKeys.clear();
    appKeys.set(app, (byKey = new Map()));
  }
  let k = byKey.get(by);
  if (k === undefined) byKey.set(by, (k = `${app}|${by}`));
  return k;
}

/** A flow's server name as a domain key (lower case, no trailing dot, capped), or null when it has none. */
export function domainOf(f: Pick<FlowRecord, 'serverName'>): string | null {
  const name = f.serverName;
  if (!name) return null;
  const d = name.toLowerCase().replace(/\.$/, '').slice(0, MAX_NAME_LENGTH);
  return d === '' ? null : d;
}

/** Counters attributed so far for a flow reported as snapshots, and the names they went to. */
interface Attributed {
  packets: number;
  bytes: number;
  fwdBytes: number;
  bwdBytes: number;
  /** Domain, application and program key the flow was counted under (null: none yet). */
  domain: string | null;
  app: string | null;
  program: string | null;
}

/** Per-flow deltas being attributed. */
interface FlowDelta {
  packets: number;
  bytes: number;
  fwdBytes: number;
  bwdBytes: number;
  flows: number;
}

/** The sensor's live statistics: fed flow batches by the pipeline, ticked once per second. */
export class LiveStats {
  private readonly deps: LiveStatsDeps;
  private readonly isLocal: (ip: string) => boolean;
  /** Per-second buckets keyed by start ms. */
  private readonly seconds = new Map<number, TrafficCounts>();
  /** Per-minute buckets keyed by start ms. */
  private readonly minutes = new Map<number, TrafficCounts>();
  private readonly talkers = new Map<string, Omit<TalkerCounts, 'ip'>>();
  private readonly ports = new Map<string, PortCounts>();
  /** By domain (lower-case server name); bounded by {@link MAX_NAMES}. */
  private readonly domains = new Map<string, DomainCounts>();
  /** By `app|by`; bounded by {@link MAX_NAMES}. */
  private readonly apps = new Map<string, AppCounts>();
  /** By program (executable path, else `comm:` + process name); bounded by {@link MAX_NAMES}. */
  private readonly programs = new Map<string, ProgramCounts>();
  private readonly directions: DirectionCounts = { inbound: zero(), outbound: zero(), internal: zero(), external: zero() };
  /** Counters already attributed for flows reported as snapshots (key: flow identity). */
  private readonly snapshotted = new Map<string, Attributed>();
  /** The delta of the flow being attributed (reused: nothing keeps it past {@link recordFlows}). */
  private readonly delta: FlowDelta = { packets: 0, bytes: 0, fwdBytes: 0, bwdBytes: 0, flows: 0 };
  private lastTotals: TrafficCounts | null = null;
  private last: TimelineBucket = { startMs: 0, ...zero() };
  private timer: NodeJS.Timeout | null = null;
  private ticks = 0;
  private readonly tickListeners = new Set<() => Promise<void> | void>();

  constructor(deps: LiveStatsDeps) {
    this.deps = deps;
    this.isLocal = deps.isLocal ?? localAddressClassifier();
  }

  /** True between {@link start} and {@link stop}: the once-per-second tick is running. */
  get running(): boolean {
    return this.timer !== null;
  }

  /** Loads the stored timelines and starts the once-per-second tick. */
  async start(): Promise<void> {
    const now = this.deps.clock.now();
    for (const b of await listBuckets(this.deps.store, 'minute', now - MINUTES_KEPT * MINUTE_MS)) {
      this.minutes.set(b.start_ms, { packets: b.packets, bytes: b.bytes, flows: b.flows });
    }
    for (const b of await listBuckets(this.deps.store, 'second', now - SECONDS_KEPT * SECOND_MS)) {
      this.seconds.set(b.start_ms, { packets: b.packets, bytes: b.bytes, flows: b.flows });
    }
    this.lastTotals = this.snapshotTotals();
    this.timer = setInterval(() => {
      this.tick().catch((err: unknown) => this.deps.log?.('stats tick failed', err));
    }, SECOND_MS);
    this.timer.unref();
  }

  /** Stops the tick; the last partial second is flushed (tick listeners run with {@link running} false). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.tick();
  }

  /**
   * Registers `listener` to run after every closed second, awaited in registration order; a listener that throws fails
   * that tick (logged). Returns the function that removes it.
   */
  onTick(listener: () => Promise<void> | void): () => void {
    this.tickListeners.add(listener);
    return () => this.tickListeners.delete(listener);
  }

  /**
   * Attributes a flow batch to talkers, ports, domains, applications and directions (snapshots of one flow are not
   * double-counted). A flow counts towards a domain or an application once it has a name or a label: a snapshot
   * without one and a later record with one move the whole flow (its bytes so far, one flow) there.
   */
  recordFlows(flows: readonly FlowRecord[]): void {
    // Runs for every flow: one scratch delta, no closures, and the identity key is built only when it can matter.
    const d = this.delta;
    for (const f of flows) {
      const snapshot = f.endReason === 'snapshot';
      // Only snapshots are remembered by key: with none remembered, a record that is no snapshot needs no key.
      const key = snapshot || this.snapshotted.size > 0 ? `${f.id}|${f.firstSeenMs}|${f.srcIp}|${f.srcPort}` : null;
      const prev = key === null ? undefined : this.snapshotted.get(key);
      d.packets = f.packets - (prev?.packets ?? 0);
      d.bytes = f.bytes - (prev?.bytes ?? 0);
      d.fwdBytes = f.fwdBytes - (prev?.fwdBytes ?? 0);
      d.bwdBytes = f.bwdBytes - (prev?.bwdBytes ?? 0);
      d.flows = prev === undefined ? 1 : 0;
      const domain = domainOf(f);
      const app = f.app ? appKey(f.app, f.appBy ?? 'port') : null;
      const program = programOf(f);
      if (key !== null && snapshot) {
        this.snapshotted.set(key, {
          packets: f.packets,
          bytes: f.bytes,
          fwdBytes: f.fwdBytes,
          bwdBytes: f.bwdBytes,
          domain: domain ?? prev?.domain ?? null,
          app: app ?? prev?.app ?? null,
          program: program?.key ?? prev?.program ?? null,
        });
        if (this.snapshotted.size > MAX_KEYS) this.snapshotted.delete(this.snapshotted.keys().next().value as string);
      } else if (key !== null && prev !== undefined) {
        this.snapshotted.delete(key);
      }
      this.attribute(f, d);
      if (domain !== null) {
        let c = this.domains.get(domain);
        if (c === undefined) this.domains.set(domain, (c = { name: domain, packets: 0, bytes: 0, flows: 0 }));
        this.addNamed(c, f, d, prev !== undefined && prev.domain === domain);
      }
      if (app !== null) {
        let c = this.apps.get(app);
        if (c === undefined) this.apps.set(app, (c = { app: f.app as string, by: f.appBy ?? 'port', packets: 0, bytes: 0, flows: 0 }));
        this.addNamed(c, f, d, prev !== undefined && prev.app === app);
      }
      if (program !== null) {
        let c = this.programs.get(program.key);
        if (c === undefined) this.programs.set(program.key, (c = { name: program.name, exe: program.exe, packets: 0, bytes: 0, flows: 0 }));
        this.addNamed(c, f, d, prev !== undefined && prev.program === program.key);
      }
    }
    trim(this.talkers);
    trim(this.ports);
    trimNames(this.domains);
    trimNames(this.apps);
    trimNames(this.programs);
  }

  /** Adds flow `f` to `c`: its delta when earlier records were counted there too, else the whole flow so far. */
  private addNamed(c: TrafficCounts, f: FlowRecord, d: FlowDelta, countedBefore: boolean): void {
    c.packets += countedBefore ? d.packets : f.packets;
    c.bytes += countedBefore ? d.bytes : f.bytes;
    c.flows += countedBefore ? 0 : 1;
  }

  private talk(ip: string, d: FlowDelta, sent: number, received: number): void {
    let t = this.talkers.get(ip);
    if (t === undefined) {
      t = { packets: 0, bytes: 0, flows: 0, sentBytes: 0, receivedBytes: 0 };
      this.talkers.set(ip, t);
    }
    t.packets += d.packets;
    t.bytes += sent + received;
    t.flows += d.flows;
    t.sentBytes += sent;
    t.receivedBytes += received;
  }

  private attribute(f: FlowRecord, d: FlowDelta): void {
    this.talk(f.srcIp, d, d.fwdBytes, d.bwdBytes);
    this.talk(f.dstIp, d, d.bwdBytes, d.fwdBytes);

    if (f.protocol === 6 || f.protocol === 17) {
      const k = portKey(f.protocol, f.dstPort);
      let p = this.ports.get(k);
      if (p === undefined) {
        p = { port: f.dstPort, protocol: f.protocol === 6 ? 'tcp' : 'udp', packets: 0, bytes: 0, flows: 0 };
        this.ports.set(k, p);
      }
      p.packets += d.packets;
      p.bytes += d.bytes;
      p.flows += d.flows;
    }

    const srcLocal = this.isLocal(f.srcIp);
    const dstLocal = this.isLocal(f.dstIp);
    const fwdShare = d.bytes > 0 ? d.fwdBytes / Math.max(1, d.fwdBytes + d.bwdBytes) : 0.5;
    const fwdPackets = Math.round(d.packets * fwdShare);
    const dir = this.directions;
    if (srcLocal && dstLocal) addCounts(dir.internal, d.bytes, d.packets, d.flows);
    else if (!srcLocal && !dstLocal) addCounts(dir.external, d.bytes, d.packets, d.flows);
    else {
      addCounts(srcLocal ? dir.outbound : dir.inbound, d.fwdBytes, fwdPackets, d.flows);
      addCounts(srcLocal ? dir.inbound : dir.outbound, d.bwdBytes, d.packets - fwdPackets, 0);
    }
  }

  /**
   * Closes the current second: the totals' deltas since the last tick go to both timelines and the store's traffic
   * buckets, then the tick listeners run.
   */
  async tick(): Promise<void> {
    const now = this.deps.clock.now();
    const totals = this.snapshotTotals();
    const last = this.lastTotals ?? totals;
    // A negative delta cannot happen (totals are summed over sessions), but never record one.
    const delta: TrafficCounts = {
      packets: Math.max(0, totals.packets - last.packets),
      bytes: Math.max(0, totals.bytes - last.bytes),
      flows: Math.max(0, totals.flows - last.flows),
    };
    this.lastTotals = totals;
    const secondStart = Math.floor(now / SECOND_MS) * SECOND_MS - SECOND_MS;
    const minuteStart = Math.floor(secondStart / MINUTE_MS) * MINUTE_MS;
    const add = (map: Map<number, TrafficCounts>, key: number): void => {
      const b = map.get(key) ?? zero();
      b.packets += delta.packets;
      b.bytes += delta.bytes;
      b.flows += delta.flows;
      map.set(key, b);
    };
    add(this.seconds, secondStart);
    add(this.minutes, minuteStart);
    this.last = { startMs: secondStart, ...delta };
    for (const k of this.seconds.keys()) if (k < now - SECONDS_KEPT * SECOND_MS - SECOND_MS) this.seconds.delete(k);
    for (const k of this.minutes.keys()) if (k < now - MINUTES_KEPT * MINUTE_MS - MINUTE_MS) this.minutes.delete(k);

    if (delta.packets + delta.bytes + delta.flows > 0) {
      await addToBuckets(this.deps.store, [
        { resolution: 'second', start_ms: secondStart, ...delta },
        { resolution: 'minute', start_ms: minuteStart, ...delta },
      ]);
    }
    if (++this.ticks % 60 === 0) {
      await pruneBuckets(this.deps.store, 'second', now - SECONDS_KEPT * SECOND_MS);
      await pruneBuckets(this.deps.store, 'minute', now - MINUTES_KEPT * MINUTE_MS);
    }
    for (const listener of [...this.tickListeners]) await listener();
  }

  private snapshotTotals(): TrafficCounts {
    const t = this.deps.monitoring.totals();
    return { packets: t.packets, bytes: t.bytes, flows: t.flows };
  }

  /** The last closed second (zeros before the first tick). Replaced, never mutated, by each tick. */
  lastSecond(): Readonly<TimelineBucket> {
    return this.last;
  }

  /** One bucket per second for the 300 seconds up to the last closed one, oldest first (zeros where nothing was seen). */
  perSecond(): TimelineBucket[] {
    const now = this.deps.clock.now();
    const out: TimelineBucket[] = [];
    const lastSecond = Math.floor(now / SECOND_MS) * SECOND_MS - SECOND_MS;
    for (let t = lastSecond - (SECONDS_KEPT - 1) * SECOND_MS; t <= lastSecond; t += SECOND_MS) out.push({ startMs: t, ...(this.seconds.get(t) ?? zero()) });
    return out;
  }

  /** One bucket per minute with traffic in the last 24 hours, oldest first. */
  perMinute(): TimelineBucket[] {
    const now = this.deps.clock.now();
    return [...this.minutes.entries()]
      .filter(([t]) => t >= now - MINUTES_KEPT * MINUTE_MS)
      .sort((a, b) => a[0] - b[0])
      .map(([t, b]) => ({ startMs: t, ...b }));
  }

  /** The `n` hosts with the most bytes sent + received (copies). */
  topTalkers(n: number): TalkerCounts[] {
    return topN(this.talkers, n).map(([ip, t]) => ({ ip, ...t }));
  }

  /** The `n` responder ports with the most bytes (copies). */
  topPorts(n: number): PortCounts[] {
    return topN(this.ports, n).map(([, p]) => ({ ...p }));
  }

  /** The `n` domains (server names, lower case) with the most bytes, and the `n` with the most flows (copies). */
  topDomains(n: number): RankedCounts<DomainCounts> {
    return { byBytes: topN(this.domains, n).map(([, c]) => ({ ...c })), byFlows: topByFlows(this.domains, n).map(([, c]) => ({ ...c })) };
  }

  /** The `n` application labels with the most bytes, and the `n` with the most flows (copies). */
  topApplications(n: number): RankedCounts<AppCounts> {
    return { byBytes: topN(this.apps, n).map(([, c]) => ({ ...c })), byFlows: topByFlows(this.apps, n).map(([, c]) => ({ ...c })) };
  }

  /** The `n` programs with the most bytes, and the `n` with the most flows (copies). */
  topPrograms(n: number): RankedCounts<ProgramCounts> {
    return { byBytes: topN(this.programs, n).map(([, c]) => ({ ...c })), byFlows: topByFlows(this.programs, n).map(([, c]) => ({ ...c })) };
  }

  /** Distinct domains and application labels tracked now (at most {@link MAX_NAMES} each after a batch). */
  namesTracked(): { domains: number; applications: number } {
    return { domains: this.domains.size, applications: this.apps.size };
  }

  /** The direction split since start (a copy). */
  directionCounts(): DirectionCounts {
    return structuredClone(this.directions);
  }
}
