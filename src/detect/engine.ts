/**
 * The detection engine the pipeline calls for every flow batch: ML scoring (one `session.run` per batch on the model's
 * thread, bounded concurrency) started first, behavioural detectors (synchronous, bounded state) meanwhile, then
 * aggregated alerts and threats in the store.
 *
 * Usage (composition root):
 *   const engine = await createDetectionEngine({ store, config: loadDetectionConfig(), events, firewall });
 *   sensor.on('flows', (batch) => void engine.ingest(batch));   // or await it to apply backpressure upstream
 *   app deps: { detection: engine }                               // GET /api/ml/stats -> engine.mlStats()
 *   on shutdown: await engine.close();
 */
import type { DetectionConfig } from '../config/detection.js';
import type { EventBus } from '../events.js';
import type { FirewallService } from '../firewall/types.js';
import { loadFlowModel, type FlowModel } from '../ml/model.js';
import { emptyMlStats, FlowScorer } from '../ml/scorer.js';
import type { ArpBinding } from '../native/capture.js';
import type { FlowRecord } from '../native/flow-record.js';
import type { Store } from '../store/database.js';
import { AlertAggregator, type RecordedAlert } from './alert-aggregator.js';
import { ArpDetector } from './detectors/arp.js';
import { BeaconDetector } from './detectors/beacon.js';
import { BlockedIpDetector } from './detectors/blocked-ip.js';
import { DnsTunnelDetector } from './detectors/dns-tunnel.js';
import { BruteForceDetector } from './detectors/brute-force.js';
import { PacketFloodDetector, ReflectionDetector, SynFloodDetector } from './detectors/flood.js';
import { IcmpTunnelDetector } from './detectors/icmp-tunnel.js';
import { Ipv6CovertChannelDetector } from './detectors/ipv6-covert.js';
import { PortScanDetector } from './detectors/port-scan.js';
import { ThreatIntelDetector } from './detectors/threat-intel.js';
import { WebAttackDetector } from './detectors/web-attack.js';
import { TlsHeartbeatDetector } from './detectors/tls-heartbeat.js';
import { ExecutableDownloadDetector } from './detectors/executable-download.js';
import { MalwareEvidenceDetector } from './detectors/malware-evidence.js';
import { LateralMovementDetector } from './detectors/lateral-movement.js';
import { CryptoMiningDetector } from './detectors/crypto-mining.js';
import { ZerologonDetector } from './detectors/zerologon.js';
import type { Detector, Finding } from './finding.js';
import { createGeoLocator, type GeoLocator } from './geo.js';
import { LruTable, reusableKey, type TableKey } from './lru-map.js';
import { type FlagMemory, mlFindings } from './ml-findings.js';
import { ProgramIndex } from './programs.js';
import { ServerNameIndex } from './server-names.js';
import { loadThreatIntel, type ThreatIntelIndex } from './threat-intel.js';
import type { MlStats } from '../ml/types.js';
import type { DetectionEngine } from './types.js';

/** What {@link createDetectionEngine} needs. */
export interface DetectionEngineDeps {
  store: Store;
  config: Readonly<DetectionConfig>;
  /** Alert events for `/api/events`. */
  events?: EventBus | null;
  /** For the blocked-IP detector and auto-block; without it both are off. */
  firewall?: FirewallService | null;
  /** A loaded model (tests, benchmarks); default: loaded from `config.ml.modelPath` when `config.ml.enabled`. */
  model?: FlowModel | null;
  /** Geolocation for threats; default: the bundled DB-IP database. Pass null to store threats without location. */
  geo?: GeoLocator | null;
  /** Wall clock for alert timestamps (default Date.now). */
  now?: () => number;
  /**
   * When given, a model that cannot be loaded does not stop detection: the error is passed here and the engine runs
   * the behavioural detectors without ML (`mlStats().model` is null). Without it, creation rejects.
   */
  onModelError?: (err: Error) => void;
}

/** The engine plus the parts tests and tools look at. */
export interface VigilDetectionEngine extends DetectionEngine {
  /** Scores, detects and stores one batch; resolves to the alerts it created or updated. */
  process(flows: FlowRecord[]): Promise<RecordedAlert[]>;
  /** Judges and stores one batch of ARP bindings; resolves to the alerts it created or updated. */
  processArp(bindings: readonly ArpBinding[]): Promise<RecordedAlert[]>;
  readonly model: FlowModel | null;
  /** The threat lists loaded from `VIGIL_INTEL_FILES` (empty without them). */
  readonly intel: ThreatIntelIndex;
  /** Flows handed to `ingest`/`process` so far. */
  readonly flowsIngested: number;
}

/**
 * Builds the engine. Loads the threat lists (`VIGIL_INTEL_FILES`; ConfigError naming a file that cannot be read) and
 * the model once (warm-up included) unless `deps.model` is given or ML is disabled; rejects with
 * ServiceUnavailableError (`model_unavailable`) when the configured model cannot be loaded, unless
 * `deps.onModelError` is given (then detection runs without ML).
 */
export async function createDetectionEngine(deps: DetectionEngineDeps): Promise<VigilDetectionEngine> {
  const { config } = deps;
  const intel = loadThreatIntel(config.intelFiles);
  let model: FlowModel | null = null;
  if (deps.model !== undefined) model = deps.model;
  else if (config.ml.enabled) {
    try {
      model = await loadFlowModel(config.ml.modelPath, { threads: config.ml.threads });
    } catch (err) {
      if (!deps.onModelError) throw err;
      deps.onModelError(err as Error);
    }
  }
  const ownsModel = deps.model === undefined && model !== null;
  const scorer = model
    ? new FlowScorer(model, {
        maxInFlight: config.ml.maxInFlight,
        maxQueuedFlows: config.ml.maxQueuedFlows,
        maxBatch: config.ml.maxBatch,
        explainTop: config.ml.explainTop,
        minPackets: config.ml.minPackets,
      })
    : null;
  const scan = new PortScanDetector(config.portScan, config.maxTracked);
  const detectors: Detector[] = [
    scan,
    ...(config.portScan.slowWindowSec > 0 ? [slowScanDetector(config, scan)] : []),
    new SynFloodDetector(config.synFlood, config.maxTracked),
    new PacketFloodDetector(config.flood, config.maxTracked),
    new ReflectionDetector(config.reflection, config.maxTracked),
    new IcmpTunnelDetector(config.maxTracked),
    new Ipv6CovertChannelDetector(config.ipv6Covert, config.maxTracked),
    new BruteForceDetector(config.bruteForce, config.maxTracked),
    new BeaconDetector(config.beacon, config.maxTracked),
    new DnsTunnelDetector(config.dnsTunnel, config.maxTracked),
    new WebAttackDetector(config.maxTracked),
    new TlsHeartbeatDetector(),
    new ExecutableDownloadDetector(),
    new MalwareEvidenceDetector(config.malwareEvidence, config.maxTracked),
    new LateralMovementDetector(config.lateralMovement, config.maxTracked),
    new ZerologonDetector(config.zerologon, config.maxTracked),
    new CryptoMiningDetector(config.maxTracked),
  ];
  if (!intel.empty) detectors.push(new ThreatIntelDetector(intel, config.maxTracked));
  const arp = new ArpDetector(config.arp, config.maxTracked);
  const firewall = deps.firewall ?? null;
  if (firewall) detectors.push(new BlockedIpDetector((ip) => firewall.isBlocked(ip)));
  const alerts = new AlertAggregator({
    store: deps.store,
    config,
    events: deps.events ?? null,
    geo: deps.geo !== undefined ? deps.geo : createGeoLocator(),
    firewall,
    now: deps.now,
  });
  let ingested = 0;
  let closed = false;
  const pending = new Set<Promise<RecordedAlert[]>>();
  // Flows already flagged (snapshots repeat a flow's id and start; ids restart with a new capture session, so the
  // start time is part of the key): bounded, oldest forgotten first.
  const flaggedFlows = new FlowKeys(config.maxTracked);
  // The server names findings and threats were seen under (bounded; see server-names.ts).
  const names = new ServerNameIndex();
  // The local programs on findings' flows and with threat addresses (bounded; see programs.ts).
  const programs = new ProgramIndex();

  async function process(flows: FlowRecord[]): Promise<RecordedAlert[]> {
    if (closed) throw new RangeError('DetectionEngine is closed');
    ingested += flows.length;
    if (flows.length === 0) return [];
    // Scoring first: its inference runs on the model's thread while the detectors run here.
    const scoring = scorer ? scorer.score(flows) : null;
    const findings: Finding[] = [];
    try {
      names.observe(flows);
      programs.observe(flows);
      for (const d of detectors) findings.push(...d.observe(flows));
    } catch (err) {
      await scoring?.catch(() => undefined);
      throw err;
    }
    if (scoring && model) {
      const scored = await scoring;
      if (scored && scored.flagged.length > 0)
        findings.push(
          ...mlFindings(flows, scored.flagged, model.info, model.thresholds, flaggedFlows, model.attributor ? 'path' : 'heuristic', config.ml.minClassShare),
        );
    }
    for (const f of findings) {
      names.annotate(f);
      programs.annotate(f);
    }
    return alerts.record(findings);
  }

  async function processArp(bindings: readonly ArpBinding[]): Promise<RecordedAlert[]> {
    if (closed) throw new RangeError('DetectionEngine is closed');
    if (bindings.length === 0) return [];
    return alerts.record(arp.observeArp(bindings));
  }

  /** Runs `work`, tracked so that close() waits for it. */
  async function track(work: Promise<RecordedAlert[]>): Promise<void> {
    pending.add(work);
    try {
      await work;
    } finally {
      pending.delete(work);
    }
  }

  return {
    model,
    intel,
    get flowsIngested() {
      return ingested;
    },
    process,
    processArp,
    ingest(flows: FlowRecord[]): Promise<void> {
      return track(process(flows));
    },
    ingestArp(bindings: readonly ArpBinding[]): Promise<void> {
      return track(processArp(bindings));
    },
    skip(flowCount: number): void {
      scorer?.skip(flowCount);
    },
    mlStats(): MlStats {
      return scorer ? scorer.stats() : emptyMlStats();
    },
    /** Stops accepting batches, waits for the ones in progress, releases the model if the engine loaded it. */
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...pending]);
      if (ownsModel && model) await model.release();
    },
  };
}

/**
 * A set of (flow id, first-seen ms) pairs holding at most `max`, the oldest added forgotten first: a Set of
 * `${id}@${firstSeenMs}` strings without building the strings. An {@link LruTable} whose entries are never `use`d, so
 * its use order is the order of adding.
 */
export class FlowKeys implements FlagMemory {
  private readonly seen = new LruTable<0>();
  private readonly key: TableKey = reusableKey();

  constructor(private readonly max: number) {}

  get size(): number {
    return this.seen.size;
  }

  /** ml-findings.ts {@link FlagMemory}: adds the flow's (id, first-seen ms); false when it was there already. */
  firstFlag(flow: FlowRecord): boolean {
    return this.add(flow.id, flow.firstSeenMs);
  }

  /** Adds the pair; false (and no change) when it is already there. */
  add(id: number, firstSeenMs: number): boolean {
    this.key.a = id;
    this.key.b = firstSeenMs;
    if (this.seen.find(this.key) >= 0) return false;
    this.seen.add(this.key, 0);
    this.seen.cap(this.max);
    return true;
  }
}

/** The slow-scan instance of the port-scan detector (see port-scan.ts): a long window, a higher threshold, deferring to `fast`. */
function slowScanDetector(config: DetectionConfig, fast: PortScanDetector): PortScanDetector {
  const { slowWindowSec, slowMinDistinct } = config.portScan;
  return new PortScanDetector(
    { ...config.portScan, windowSec: slowWindowSec, minPorts: slowMinDistinct, minHosts: slowMinDistinct },
    config.maxTracked,
    20_000,
    {
      defer: fast,
    },
  );
}
