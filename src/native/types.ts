/**
 * The typed face of the capture core that the rest of `src/` programs against. `src/native/capture.ts` implements
 * {@link Sensor}; consumers (desktop API, detection, store) import these types only.
 */
import type { FlowRecord } from './flow-record.js';

export type { FlowRecord, FlowEndReason } from './flow-record.js';

/** Where packets come from. */
export type CaptureSource =
  | {
      kind: 'live';
      /** Interface name (`eth0`); default: libpcap's default device. */
      interface?: string;
      /** BPF filter expression. */
      filter?: string;
      promiscuous?: boolean;
      snaplen?: number;
      /** Kernel buffer size in bytes. */
      bufferSize?: number;
      immediate?: boolean;
    }
  | {
      kind: 'file';
      path: string;
      filter?: string;
      /** 0 = as fast as possible (never drops; waits for JS); otherwise a real-time multiplier (1 = real time). */
      speed?: number;
    };

/** Flow-table and timing settings (all optional; defaults documented in docs/flow-features.md). */
export interface FlowOptions {
  idleTimeoutSec?: number;
  activeTimeoutSec?: number;
  maxFlows?: number;
  /** How often (s) snapshots of long-lived active flows are emitted. */
  snapshotIntervalSec?: number;
  /** How often (ms) statistics are emitted. */
  statsIntervalMs?: number;
  /**
   * Whole seconds added to the first and last packet times of every flow of the session (default 0), before any
   * consumer sees them: a looping replay's later loops move on in time instead of repeating it.
   */
  timeOffsetSec?: number;
  /** The application layer (names, handshakes, fingerprints; default true). Off: those flow fields are null. */
  appLayer?: boolean;
  /** Community ID seed, 0..65535 (default 0). */
  communityIdSeed?: number;
  /**
   * Live capture on Linux: attribute each new TCP and UDP flow to the program owning its local socket (the flow's
   * `process`; default false). Ignored for files: a replay carries no process.
   */
  processes?: boolean;
  /** CPU budget of the process resolver, percent of one core (default 1): past it, lookups wait and share rounds. */
  processCpuPercent?: number;
}

/** First and last packet times of a set of flows, epoch milliseconds. */
export interface FlowTimeSpan {
  /** Earliest first-packet time. */
  firstMs: number;
  /** Latest last-packet time. */
  lastMs: number;
}

/** Counters of one capture session; all monotonically increasing since start. */
export interface SensorStats {
  /** Every packet read, decoded or not. */
  packets: number;
  /** Sum of captured frame lengths (wire length) of all packets read. */
  bytes: number;
  /** Flows finished (plus still-active flows flushed at the end). */
  flows: number;
  flowsActive: number;
  flowsEvicted: number;
  /** Per-protocol counters keyed by name (`tcp`, `udp`, `icmp`, `icmpv6`, `other`, `non_ip`). */
  protocols: Record<string, { packets: number; bytes: number; flows: number }>;
  /** Decode problems by reason (`truncated_ip`, `bad_udp_length`, ...). */
  decodeErrors: Record<string, number>;
  /** libpcap's pcap_stats (live capture only; zeros for files). */
  pcap: { received: number; dropped: number; ifDropped: number };
  batchesDelivered: number;
  batchesDropped: number;
}

/** Events a running {@link Sensor} emits. */
export interface SensorEvents {
  /** A batch of finished flows and snapshots of long-lived active flows (`endReason: 'snapshot'`). */
  flows: (flows: FlowRecord[]) => void;
  /** Periodic statistics. */
  stats: (stats: SensorStats) => void;
  /** The source ended (end of file, or stop()). `stats` is final. */
  end: (stats: SensorStats) => void;
  /** An error after start (device went away, ...). */
  error: (err: Error) => void;
}

/** A capture session. start()/stop() are idempotent. */
export interface Sensor {
  readonly running: boolean;
  readonly source: CaptureSource | null;
  start(source: CaptureSource, options?: FlowOptions): Promise<void>;
  stop(): Promise<SensorStats>;
  stats(): SensorStats;
  /**
   * Earliest first-packet and latest last-packet time of the flows the current (or last) session delivered, before
   * its `timeOffsetSec`; null before the first flow. Optional: a sensor without it cannot have its replays shifted.
   */
  flowTimeSpan?(): FlowTimeSpan | null;
  on<E extends keyof SensorEvents>(event: E, listener: SensorEvents[E]): this;
  off<E extends keyof SensorEvents>(event: E, listener: SensorEvents[E]): this;
}
