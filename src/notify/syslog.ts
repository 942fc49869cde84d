/**
 * Alerts to syslog as RFC 5424 messages over UDP (RFC 5426, one message per datagram), TCP (RFC 6587 octet counting:
 * `LEN SP MSG`) or a unix socket. A unix stream socket gets one message per line (as syslog-ng's `unix-stream()` and
 * most local collectors read it). Node cannot write to a unix datagram socket, such as `/dev/log` on a systemd machine
 * (journald's `dev-log`) or rsyslog's `imuxsock`; when the socket turns out to be one, each message goes through
 * `logger(1)` of util-linux instead (`--socket PATH --rfc5424`, with Vigil's structured data as `--sd-param`s), one
 * process per message, one at a time: what the platform offers without native code (util-linux is essential on
 * Debian and present on every systemd distribution; journald's native protocol is a datagram socket too).
 *
 * Sending never blocks the caller: while a stream is connecting or down, or logger runs, up to {@link MAX_BUFFERED}
 * messages wait and later ones are dropped and counted, as are messages to a connected stream that holds more than
 * {@link MAX_UNSENT_BYTES} unsent (the collector stopped reading); a lost connection is retried with a doubling delay (at most
 * 30 s). Field rules from RFC 5424 §6 (header, structured data escaping, the UTF-8 BOM before MSG).
 */
import dgram from 'node:dgram';
import net from 'node:net';
import os from 'node:os';
import type { SyslogTarget } from '../config/notify.js';
import type { AlertView, Severity } from '../domain/alert.js';
import { runCommand, type Command } from './notification-commands.js';
import { alertEndpoints } from './webhook-format.js';

/** Facility 4: security/authorization messages (RFC 5424 table 1). */
export const SYSLOG_FACILITY = 4;
/** Vigil's severities as syslog severities: crit, err, warning, notice. */
export const SYSLOG_SEVERITY: Record<Severity, number> = { critical: 2, high: 3, medium: 4, low: 5 };
/** The SD-ID of Vigil's structured data element (32473 is the private enterprise number RFC 5612 sets aside for examples and documentation). */
export const SD_ID = 'vigil@32473';
/** Messages kept while a stream is not connected. */
export const MAX_BUFFERED = 1000;
/** Bytes a stream may hold unsent (a collector that accepts and stops reading) before further messages are dropped. */
export const MAX_UNSENT_BYTES = 1024 * 1024;
/** The largest UDP message sent (RFC 5426 §3.2: receivers should accept 2048 octets); longer MSG text is cut. */
export const MAX_UDP_BYTES = 2048;
/** The largest message `logger(1)` is told to send (its default is 1 KiB; rsyslog and journald take 8 KiB). */
export const MAX_LOGGER_BYTES = 8192;
/** Syslog severities by the names `logger --priority auth.<name>` takes (facility 4 is `auth`). */
const LOGGER_LEVEL: Record<Severity, string> = { critical: 'crit', high: 'err', medium: 'warning', low: 'notice' };

const BOM = '\ufeff';

/** An RFC 5424 PARAM-VALUE: `"`, `\` and `]` escaped with a backslash. */
function sdValue(v: string): string {
  return v.replace(/["\\\]]/g, (c) => `\\${c}`);
}

/** A header field: printable US-ASCII without spaces, at most `max` characters, `-` when empty. */
function headerField(v: string, max: number): string {
  const clean = v.replace(/[^\x21-\x7e]/g, '').slice(0, max);
  return clean === '' ? '-' : clean;
}

/** What a message is built from besides the alert. */
export interface SyslogHeader {
  hostname: string;
  procId: number;
  /** Epoch ms of the message. */
  nowMs: number;
}

/** The PARAM-NAME / value pairs of Vigil's structured data element (fields that are unknown left out). */
function sdParams(alert: AlertView): Array<[string, string]> {
  const params: Array<[string, string | number | null]> = [
    ['id', alert.id],
    ['severity', alert.severity],
    ['category', alert.category],
    ['source', alert.source],
    ['srcIp', alert.srcIp],
    ['srcPort', alert.srcPort],
    ['dstIp', alert.dstIp],
    ['dstPort', alert.dstPort],
    ['protocol', alert.protocol],
    ['score', alert.score],
    ['count', alert.count],
    ['firstSeen', alert.firstSeen],
  ];
  return params.filter((p): p is [string, string | number] => p[1] !== null).map(([k, v]) => [k, String(v)]);
}

/** The one-line MSG text (without the BOM). */
function messageText(alert: AlertView): string {
  return `${alert.title}: ${alertEndpoints(alert)}${alert.description === '' ? '' : ` - ${alert.description}`}`.replace(/[\r\n]+/g, ' ');
}

/** One alert as an RFC 5424 message (no transport framing). */
export function formatSyslogMessage(alert: AlertView, header: SyslogHeader): string {
  const pri = SYSLOG_FACILITY * 8 + SYSLOG_SEVERITY[alert.severity];
  const sd = sdParams(alert)
    .map(([k, v]) => `${k}="${sdValue(v)}"`)
    .join(' ');
  const ts = new Date(header.nowMs).toISOString();
  return `<${pri}>1 ${ts} ${headerField(header.hostname, 255)} vigil ${headerField(String(header.procId), 128)} alert [${SD_ID} ${sd}] ${BOM}${messageText(alert)}`;
}

/**
 * `logger(1)` sending one alert to the unix socket `socketPath` as RFC 5424 (util-linux; tested with 2.38.1): the same
 * PRI, APP-NAME, PROCID, MSGID, structured data and MSG as {@link formatSyslogMessage}; logger writes the timestamp
 * (with microseconds and the UTC offset) and the host name. `notq` leaves out logger's own `timeQuality` element.
 * Run without a shell; the message follows `--`, so no alert text is read as an option.
 */
export function loggerCommand(socketPath: string, alert: AlertView, procId: number): Command {
  return {
    file: 'logger',
    args: [
      '--socket',
      socketPath,
      '--socket-errors=on',
      '--rfc5424=notq',
      '--size',
      String(MAX_LOGGER_BYTES),
      '--priority',
      `auth.${LOGGER_LEVEL[alert.severity]}`,
      '--tag',
      'vigil',
      `--id=${procId}`,
      '--msgid',
      'alert',
      '--sd-id',
      SD_ID,
      ...sdParams(alert).flatMap(([k, v]) => ['--sd-param', `${k}="${sdValue(v)}"`]),
      '--',
      `${BOM}${messageText(alert)}`,
    ],
  };
}

/** Counters of the syslog sink (`/api/health` `alertSinks.syslog`). */
export interface SyslogStatus {
  /** `udp://host:port`, `tcp://host:port` or `unix:///path`. */
  target: string;
  sent: number;
  /** Messages dropped: the buffer was full while a stream was down, or a send failed. */
  dropped: number;
  /** Connection or send errors. */
  errors: number;
  /** True when the datagram socket is open or the stream connected. */
  connected: boolean;
  lastError: string | null;
}

/** A syslog destination: {@link send} per alert, {@link start}/{@link stop} by the alert sinks. */
export class SyslogSender {
  private readonly counters = { sent: 0, dropped: 0, errors: 0 };
  private lastError: string | null = null;
  private udp: dgram.Socket | null = null;
  private stream: net.Socket | null = null;
  private connected = false;
  /** Alerts waiting for the stream to connect, or for logger; each with the time it was sent. */
  private buffer: Array<{ alert: AlertView; nowMs: number }> = [];
  private retryMs = 500;
  private retryTimer: NodeJS.Timeout | null = null;
  private stopped = true;
  /** True once the unix socket turned out to be a datagram socket: messages go through logger(1). */
  private viaLogger = false;
  /** The logger run in progress, if any. */
  private loggerRun: Promise<void> | null = null;

  constructor(
    private readonly target: SyslogTarget,
    private readonly header: Omit<SyslogHeader, 'nowMs'> & { now: () => number } = { hostname: os.hostname(), procId: process.pid, now: () => Date.now() },
    private readonly log?: (message: string) => void,
    /** Runs a logger(1) command (tests may count the runs); default without a shell, 10 s at most. */
    private readonly run: (c: Command) => Promise<void> = runCommand,
  ) {}

  /** Opens the socket (a stream connects in the background). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    if (this.target.transport === 'udp') {
      this.udp = dgram.createSocket(net.isIPv6(this.target.host) ? 'udp6' : 'udp4');
      this.udp.on('error', (err) => this.fail(err));
      this.udp.unref();
      this.connected = true;
    } else if (this.viaLogger) {
      this.connected = true;
    } else {
      this.connect();
    }
  }

  /**
   * Sends what is buffered (a connected stream) and closes; waits for a logger run in progress. What still waits
   * (a stream never connected, logger's queue) is dropped and counted. Idempotent.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.counters.dropped += this.buffer.length;
    this.buffer = [];
    const udp = this.udp;
    this.udp = null;
    if (udp !== null) await new Promise<void>((resolve) => udp.close(() => resolve()));
    const stream = this.stream;
    this.stream = null;
    this.connected = false;
    if (stream !== null && !stream.destroyed) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => stream.destroy(), 1000);
        stream.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
        stream.end();
      });
    }
    await this.loggerRun;
  }

  /** Sends one alert; never throws and never waits. */
  send(alert: AlertView): void {
    if (this.stopped) return;
    const nowMs = this.header.now();
    if (this.target.transport === 'udp') {
      let bytes = Buffer.from(this.format(alert, nowMs), 'utf8');
      if (bytes.length > MAX_UDP_BYTES) bytes = bytes.subarray(0, MAX_UDP_BYTES);
      const { host, port } = this.target;
      this.udp?.send(bytes, port, host, (err) => {
        if (err) {
          this.counters.dropped++;
          this.fail(err);
        } else this.counters.sent++;
      });
      return;
    }
    if (this.connected && this.stream !== null) {
      if (this.stream.writableLength > MAX_UNSENT_BYTES) this.counters.dropped++;
      else this.write({ alert, nowMs });
    } else if (this.buffer.length < MAX_BUFFERED) this.buffer.push({ alert, nowMs });
    else this.counters.dropped++;
    if (this.viaLogger) this.drainLogger();
  }

  status(): SyslogStatus {
    const t = this.target;
    const target = t.transport === 'unix' ? `unix://${t.path}` : `${t.transport}://${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}`;
    return { target, ...this.counters, connected: this.connected, lastError: this.lastError };
  }

  private format(alert: AlertView, nowMs: number): string {
    return formatSyslogMessage(alert, { hostname: this.header.hostname, procId: this.header.procId, nowMs });
  }

  private write(m: { alert: AlertView; nowMs: number }): void {
    const message = this.format(m.alert, m.nowMs);
    this.stream?.write(this.target.transport === 'tcp' ? `${Buffer.byteLength(message, 'utf8')} ${message}` : `${message}\n`, 'utf8');
    this.counters.sent++;
  }

  /** Runs logger for the waiting alerts, one at a time, until none is left or the sender stops. */
  private drainLogger(): void {
    if (this.loggerRun !== null || this.target.transport !== 'unix') return;
    const path = this.target.path;
    this.loggerRun = (async () => {
      for (let next = this.buffer.shift(); next !== undefined && !this.stopped; next = this.buffer.shift()) {
        try {
          await this.run(loggerCommand(path, next.alert, this.header.procId));
          this.counters.sent++;
          this.connected = true;
        } catch (err) {
          this.counters.dropped++;
          this.connected = false;
          this.fail(err instanceof Error ? err : new Error(String(err)));
        }
      }
    })().finally(() => {
      this.loggerRun = null;
    });
  }

  private connect(): void {
    if (this.stopped || this.target.transport === 'udp') return;
    const socket = this.target.transport === 'unix' ? net.connect({ path: this.target.path }) : net.connect({ host: this.target.host, port: this.target.port });
    this.stream = socket;
    socket.unref();
    socket.setNoDelay(true);
    socket.on('connect', () => {
      this.connected = true;
      this.retryMs = 500;
      for (const m of this.buffer.splice(0)) this.write(m);
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPROTOTYPE' && this.target.transport === 'unix') {
        // A datagram socket (/dev/log under systemd): from now on through logger(1).
        this.viaLogger = true;
        this.connected = true;
        this.log?.(`vigil: syslog ${this.status().target} is a datagram socket: sending through logger(1)`);
        this.drainLogger();
      } else this.fail(err);
    });
    socket.on('close', () => {
      if (this.stream !== socket) return;
      this.stream = null;
      if (this.viaLogger) return; // logger's runs say whether messages get through
      this.connected = false;
      if (this.stopped) return;
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        this.connect();
      }, this.retryMs);
      this.retryTimer.unref();
      this.retryMs = Math.min(30_000, this.retryMs * 2);
    });
  }

  private fail(err: Error): void {
    this.counters.errors++;
    const message = err.message;
    if (message !== this.lastError) this.log?.(`vigil: syslog ${this.status().target}: ${message}`);
    this.lastError = message;
  }
}
