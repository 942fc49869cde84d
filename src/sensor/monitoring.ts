/**
 * Starts and stops the sensor. Sources come only from the operator's configuration (interface, filter, replay file,
 * bundled sample); a client may name an interface and a BPF filter, never a file path. Keeps counters summed over
 * sessions, restarts looping replays, and publishes `monitoring` events.
 */
import path from 'node:path';
import type { DesktopCaptureConfig } from '../config/desktop.js';
import { AppError, ConflictError, ServiceUnavailableError } from '../errors.js';
import type { EventBus } from '../events.js';
import type { CaptureSource, FlowOptions, FlowTimeSpan, Sensor, SensorStats } from '../native/types.js';
import type { Clock } from '../clock.js';
import { emptySensorStats, listInterfaces, type CaptureInterface } from '../native/capture.js';
import { addSensorStats } from './sensor-totals.js';

/** Dependencies of {@link MonitoringService}. */
export interface MonitoringDeps {
  sensor: Sensor;
  capture: DesktopCaptureConfig;
  /** Absolute path of the bundled sample capture (replayed when live capture is not permitted). */
  samplePath: string;
  events: EventBus;
  clock: Clock;
  flowOptions?: FlowOptions;
  /** Delay (ms) before a looping replay restarts. Default 1000. */
  loopDelayMs?: number;
  /**
   * Name of the device live capture uses when no interface is named (libpcap's first device, as the capture core
   * picks it), so health reports the real device. Default: the first device of `listInterfaces()`; undefined when
   * there is none or the listing fails (the capture core then picks, and the state says "the default interface").
   */
  defaultInterface?: () => string | undefined;
  /**
   * Set when `vigil start` found, before opening the store, that it will show sample data (live capture not available,
   * or `VIGIL_CAPTURE_MODE=replay` with no file), and so opened the sample-data store instead of the user's own: the
   * configured start replays the bundled sample straight away (`reason`: why live capture was not used), and live
   * capture is refused, since its traffic would land among the sample data.
   */
  sampleOnly?: { reason: string | null };
  log?: (message: string) => void;
}

/**
 * Capture state: the body of the monitoring routes and `capture` in health. The desktop API's `monitoringStateSchema`
 * describes this type for clients and OpenAPI (a compile-time check there keeps the two identical).
 */
export interface MonitoringState {
  running: boolean;
  /** `live`, `replay` or null when nothing has been started. */
  source: 'live' | 'replay' | null;
  /** ISO 8601 time the running session started; null when not running. */
  startedAt: string | null;
  interface: string | null;
  /** File name (not path) of the replayed capture. */
  file: string | null;
  /** True when the bundled sample capture is replayed (live capture not configured or not permitted). */
  sample: boolean;
  filter: string | null;
  /** Human summary, e.g. "live capture on eth0" or "replay of the bundled sample capture ...". */
  description: string;
  /** Why live capture was not used, when it was not. */
  fallbackReason: string | null;
  /** True when what is captured goes to the sample-data store, apart from the user's own (see `sampleOnly`). */
  sampleStore: boolean;
  /** Last capture error after start, if any. */
  error: string | null;
}

/** What a client may ask for. */
export interface StartRequest {
  interface?: string;
  filter?: string;
}

/**
 * Seconds between the last packet of one loop of a replay and the first packet of the next, beyond the file's span
 * rounded up to whole seconds (the loop's shift is whole seconds, so timestamps stay exact).
 */
export const LOOP_GAP_SEC = 1;

/** The shift (whole seconds) from one loop of a replay to the next: the file's span rounded up, plus the gap. */
export function loopShiftSec(span: FlowTimeSpan): number {
  return Math.ceil(Math.max(0, span.lastMs - span.firstMs) / 1000) + LOOP_GAP_SEC;
}

interface ActiveSource {
  source: CaptureSource;
  sample: boolean;
  /** Live capture on the device chosen by default (no interface configured or requested). */
  defaultDevice?: boolean;
}

/** libpcap's first device, or undefined when none is listed or the listing fails. */
function firstInterface(): string | undefined {
  try {
    return listInterfaces()[0]?.name;
  } catch {
    return undefined;
  }
}

/** The fix to suggest for a capture error message. */
function fixFor(message: string): string {
  if (/permi|denied|EPERM|EACCES|operation not permitted/i.test(message)) {
    return 'Run Vigil as root, or grant the capture capabilities: sudo setcap cap_net_raw,cap_net_admin=eip "$(command -v node)".';
  }
  if (/no such device|doesn't exist|not exist|not found|unknown interface|ENODEV/i.test(message)) {
    return 'Check the interface name with `vigil interfaces`.';
  }
  return 'Check the interface name with `vigil interfaces` and that Vigil may capture (root or CAP_NET_RAW).';
}

/** The sensor controller used by `vigil start`, the monitoring routes, health and the live statistics. */
export class MonitoringService {
  private readonly deps: MonitoringDeps;
  private active: ActiveSource | null = null;
  private last: ActiveSource | null = null;
  private startedAt: string | null = null;
  private fallbackReason: string | null = null;
  private lastError: string | null = null;
  /** Counters of finished sessions. */
  private base: SensorStats = emptySensorStats();
  /** True while the current sensor session's counters are not yet folded into `base`. */
  private sessionOpen = false;
  private userStopped = false;
  private loopTimer: NodeJS.Timeout | null = null;
  private transition: Promise<unknown> = Promise.resolve();
  /** Time shift (whole seconds) of the current file session, and of the next loop of the same file. */
  private offsetSec = 0;
  private nextLoopOffsetSec = 0;

  constructor(deps: MonitoringDeps) {
    this.deps = deps;
    deps.sensor.on('end', (stats) => this.onEnd(stats));
    deps.sensor.on('error', (err) => {
      this.lastError = err.message;
      this.publish();
    });
  }

  /**
   * The devices a client may name in `start({interface})`, as libpcap lists them (name, description, addresses, flags).
   * Throws `ServiceUnavailableError` when the capture core is not built.
   */
  interfaces(): CaptureInterface[] {
    return listInterfaces();
  }

  /** Current state (the body of the monitoring routes and `capture` in health). */
  state(): MonitoringState {
    const src = this.active ?? this.last;
    const running = this.deps.sensor.running || this.loopTimer !== null;
    const live = src?.source.kind === 'live' ? src.source : null;
    const file = src?.source.kind === 'file' ? src.source : null;
    let description = 'not capturing';
    if (live)
      description =
        live.interface === undefined
          ? 'live capture on the default interface'
          : `live capture on ${live.interface}${src?.defaultDevice ? ' (the default interface)' : ''}`;
    if (file) description = src?.sample ? `replay of the bundled sample capture ${path.basename(file.path)}` : `replay of ${path.basename(file.path)}`;
    if (!running && src) description = `stopped (last: ${description})`;
    if (file && this.fallbackReason && src?.sample) description += ` (live capture not available: ${this.fallbackReason})`;
    return {
      running,
      source: src === null ? null : live ? 'live' : 'replay',
      startedAt: running ? this.startedAt : null,
      interface: live ? (live.interface ?? null) : null,
      file: file ? path.basename(file.path) : null,
      sample: src?.sample ?? false,
      filter: src?.source.filter ?? null,
      description,
      fallbackReason: this.fallbackReason,
      sampleStore: this.deps.sampleOnly !== undefined,
      error: this.lastError,
    };
  }

  /** Counters summed over every session since the process started (flowsActive: the current session's). */
  totals(): SensorStats {
    return this.sessionOpen ? addSensorStats(this.base, this.deps.sensor.stats()) : { ...this.base, flowsActive: 0 };
  }

  /**
   * Starts the configured source: the replay file (`VIGIL_CAPTURE_FILE`), live capture, or, in `auto` mode with no
   * interface configured, the bundled sample when live capture on the default device cannot be opened. A configured
   * interface that cannot be opened, a bad filter or an unreadable file is an error (the capture error, with its
   * code), never a silent fallback. Does nothing when capture is already running.
   */
  async startConfigured(): Promise<MonitoringState> {
    return this.serialise(() => this.openConfigured());
  }

  /**
   * `POST /api/monitoring/start`: idempotent (a running capture is left alone and reported with its `startedAt`).
   * With an interface: live capture on it (409 if another source is running). Without: restarts the last source, or
   * the configured one.
   */
  async start(req: StartRequest = {}): Promise<MonitoringState> {
    // Checked inside the transition, so two concurrent starts cannot both open a source.
    return this.serialise(async () => {
      const current = this.state();
      if (current.running) {
        if (req.interface !== undefined && (current.source !== 'live' || current.interface !== req.interface)) {
          throw new ConflictError(`Capture is already running (${current.description}); stop it first.`, 'capture_running');
        }
        return current;
      }
      if (req.interface !== undefined && this.deps.sampleOnly !== undefined) {
        throw new ConflictError(
          'Vigil is showing sample data, stored apart from your own: live capture was not available when it started. Restart Vigil with the permission to capture (root or CAP_NET_RAW) to capture live.',
          'sample_data_only',
        );
      }
      if (req.interface === undefined) {
        if (this.last === null) return this.openConfigured();
        const last = this.last;
        const filter = req.filter ?? last.source.filter;
        return this.open({ ...last, source: { ...last.source, filter } });
      }
      return this.open({ source: { kind: 'live', interface: req.interface, filter: req.filter ?? this.deps.capture.filter }, sample: false });
    });
  }

  private async openConfigured(): Promise<MonitoringState> {
    if (this.state().running) return this.state();
    const cap = this.deps.capture;
    if (this.deps.sampleOnly !== undefined) {
      this.fallbackReason = this.deps.sampleOnly.reason;
      return this.open(this.fileSource(this.deps.samplePath, true));
    }
    if (cap.mode === 'replay') return this.open(this.fileSource(cap.file ?? this.deps.samplePath, cap.file === undefined));
    const live: ActiveSource = { source: { kind: 'live', interface: cap.interface, filter: cap.filter }, sample: false };
    // Only the zero-configuration case falls back: an interface the operator named must work or fail loudly.
    if (cap.mode === 'live' || cap.interface !== undefined) return this.open(live);
    try {
      return await this.open(live);
    } catch (err) {
      if (err instanceof AppError && err.code === 'capture_bad_filter') throw err; // the sample would fail the same way
      this.fallbackReason = err instanceof Error ? err.message : String(err);
      this.deps.log?.(`vigil: live capture not available (${this.fallbackReason}); replaying the bundled sample capture`);
      return this.open(this.fileSource(this.deps.samplePath, true));
    }
  }

  /** `POST /api/monitoring/stop`: idempotent; also cancels a pending replay loop. */
  async stop(): Promise<MonitoringState> {
    return this.serialise(async () => {
      this.userStopped = true;
      if (this.loopTimer) clearTimeout(this.loopTimer);
      this.loopTimer = null;
      if (this.deps.sensor.running) {
        const final = await this.deps.sensor.stop();
        this.fold(final);
      }
      this.active = null;
      this.publish();
      return this.state();
    });
  }

  private fileSource(file: string, sample: boolean): ActiveSource {
    return { source: { kind: 'file', path: file, filter: this.deps.capture.filter, speed: this.deps.capture.replaySpeed }, sample };
  }

  /** The source with the default device named, so what is opened is what the state reports. */
  private withDevice(src: ActiveSource): ActiveSource {
    if (src.source.kind !== 'live' || src.source.interface !== undefined) return src;
    const device = (this.deps.defaultInterface ?? firstInterface)();
    return device === undefined ? src : { ...src, source: { ...src.source, interface: device }, defaultDevice: true };
  }

  /**
   * Opens `requested`. `loop`: the next loop of a looping replay, which continues the monitoring session: its flows
   * move on in time by the file's span plus {@link LOOP_GAP_SEC} per loop (so detectors see time pass, not the same
   * probes again), and `startedAt` stays.
   */
  private async open(requested: ActiveSource, loop = false): Promise<MonitoringState> {
    const src = this.withDevice(requested);
    this.userStopped = false;
    const offsetSec = loop ? this.nextLoopOffsetSec : 0;
    try {
      await this.deps.sensor.start(src.source, offsetSec === 0 ? this.deps.flowOptions : { ...this.deps.flowOptions, timeOffsetSec: offsetSec });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.lastError = reason;
      const what = src.source.kind === 'live' ? `interface ${src.source.interface ?? '(default)'}` : `capture file ${path.basename(src.source.path)}`;
      // Capture errors keep their stable code and status (capture_no_such_device 400, capture_permission_denied 503...)
      // and their message, which already says what to do.
      if (err instanceof AppError) throw new AppError(err.code, err.status, `Cannot open ${what}: ${reason}`, { cause: err });
      throw new ServiceUnavailableError(`Cannot open ${what}: ${reason.replace(/\.$/, '')}. ${fixFor(reason)}`, 'capture_unavailable', { cause: err });
    }
    this.sessionOpen = true;
    this.active = src;
    this.last = src;
    this.lastError = null;
    this.offsetSec = offsetSec;
    if (!loop || this.startedAt === null) this.startedAt = new Date(this.deps.clock.now()).toISOString();
    this.publish();
    return this.state();
  }

  private fold(final: SensorStats): void {
    if (!this.sessionOpen) return;
    this.base = addSensorStats(this.base, { ...final, flowsActive: 0 });
    this.sessionOpen = false;
  }

  private onEnd(stats: SensorStats): void {
    this.fold(stats);
    const ended = this.active;
    this.active = null;
    if (!this.userStopped && ended?.source.kind === 'file' && this.deps.capture.replayLoop) {
      const span = this.deps.sensor.flowTimeSpan?.() ?? null;
      this.nextLoopOffsetSec = this.offsetSec + (span === null ? 0 : loopShiftSec(span));
      this.loopTimer = setTimeout(() => {
        this.loopTimer = null;
        if (this.userStopped) return;
        this.serialise(() => this.open(ended, true)).catch((err: unknown) => {
          this.lastError = err instanceof Error ? err.message : String(err);
          this.publish();
        });
      }, this.deps.loopDelayMs ?? 1000);
      this.loopTimer.unref();
    }
    this.publish();
  }

  private publish(): void {
    const s = this.state();
    this.deps.events.emit('monitoring', { running: s.running, source: s.source, startedAt: s.startedAt, ...(s.error ? { error: s.error } : {}) });
  }

  /** Start/stop transitions run one at a time. */
  private serialise<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.transition.then(fn, fn);
    this.transition = next.catch(() => undefined);
    return next;
  }
}

/**
 * Whether live capture on the default device can be opened now: null when it can (a session is opened and stopped
 * at once), else why not. A bad filter is the operator's error and is thrown, as `startConfigured` would.
 */
export async function liveCaptureUnavailable(sensor: Sensor, filter: string | undefined): Promise<string | null> {
  try {
    await sensor.start({ kind: 'live', interface: undefined, filter });
  } catch (err) {
    if (err instanceof AppError && err.code === 'capture_bad_filter') throw err;
    return err instanceof Error ? err.message : String(err);
  }
  await sensor.stop();
  return null;
}
