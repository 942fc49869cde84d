/**
 * Alerts to syslog as RFC 5424 messages over UDP (RFC 5426, one message per datagram), TCP (RFC 6587 octet counting:
 * `LEN SP MSG`) or a unix stream socket (one message per line, as syslog-ng's `unix-stream()` and most local
 * collectors read it). Node has no unix datagram sockets, so a datagram socket such as systemd's `/dev/log` is refused
 * with a message naming `udp://127.0.0.1:514` instead (rsyslog `imudp`, syslog-ng `network()`).
 *
 * Sending never blocks the caller: while a stream is connecting or down, up to {@link MAX_BUFFERED} messages wait and
 * later ones are dropped and counted; a lost connection is retried with a doubling delay (at most 30 s).
 * Field rules from RFC 5424 §6 (header, structured data escaping, the UTF-8 BOM before MSG).
 */
import dgram from 'node:dgram';
import net from 'node:net';
import os from 'node:os';
import type { SyslogTarget } from '../config/notify.js';
import type { AlertView, Severity } from '../domain/alert.js';
import { alertEndpoints } from './webhook-format.js';

/** Facility 4: security/authorization messages (RFC 5424 table 1). */
export const SYSLOG_FACILITY = 4;
/** Vigil's severities as syslog severities: crit, err, warning, notice. */
export const SYSLOG_SEVERITY: Record<Severity, number> = { critical: 2, high: 3, medium: 4, low: 5 };
/** The SD-ID of Vigil's structured data element (32473 is the private enterprise number RFC 5612 sets aside for examples and documentation). */
export const SD_ID = 'vigil@32473';
/** Messages kept while a stream is not connected. */
export const MAX_BUFFERED = 1000;
/** The largest UDP message sent (RFC 5426 §3.2: receivers should accept 2048 octets); longer MSG text is cut. */
export const MAX_UDP_BYTES = 2048;

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

/** One alert as an RFC 5424 message (no transport framing). */
export function formatSyslogMessage(alert: AlertView, header: SyslogHeader): string {
  const pri = SYSLOG_FACILITY * 8 + SYSLOG_SEVERITY[alert.severity];
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
  const sd = params
    .filter((p): p is [string, string | number] => p[1] !== null)
    .map(([k, v]) => `${k}="${sdValue(String(v))}"`)
    .join(' ');
  const msg = `${alert.title}: ${alertEndpoints(alert)}${alert.description === '' ? '' : ` - ${alert.description}`}`.replace(/[\r\n]+/g, ' ');
  const ts = new Date(header.nowMs).toISOString();
  return `<${pri}>1 ${ts} ${headerField(header.hostname, 255)} vigil ${headerField(String(header.procId), 128)} alert [${SD_ID} ${sd}] ${BOM}${msg}`;
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
  private buffer: string[] = [];
  private retryMs = 500;
  private retryTimer: NodeJS.Timeout | null = null;
  private stopped = true;

  constructor(
    private readonly target: SyslogTarget,
    private readonly header: Omit<SyslogHeader, 'nowMs'> & { now: () => number } = { hostname: os.hostname(), procId: process.pid, now: () => Date.now() },
    private readonly log?: (message: string) => void,
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
    } else {
      this.connect();
    }
  }

  /** Sends what is buffered (streams) and closes. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
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
  }

  /** Sends one alert; never throws and never waits. */
  send(alert: AlertView): void {
    if (this.stopped) return;
    let message = formatSyslogMessage(alert, { hostname: this.header.hostname, procId: this.header.procId, nowMs: this.header.now() });
    if (this.target.transport === 'udp') {
      let bytes = Buffer.from(message, 'utf8');
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
    message = this.target.transport === 'tcp' ? `${Buffer.byteLength(message, 'utf8')} ${message}` : `${message}\n`;
    if (this.connected && this.stream !== null) this.write(message);
    else if (this.buffer.length < MAX_BUFFERED) this.buffer.push(message);
    else this.counters.dropped++;
  }

  status(): SyslogStatus {
    const t = this.target;
    const target = t.transport === 'unix' ? `unix://${t.path}` : `${t.transport}://${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}`;
    return { target, ...this.counters, connected: this.connected, lastError: this.lastError };
  }

  private write(framed: string): void {
    this.stream?.write(framed, 'utf8');
    this.counters.sent++;
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
        this.fail(new Error(`${this.target.path} is a datagram socket, which Node cannot write to; use VIGIL_SYSLOG=udp://127.0.0.1:514`));
      } else this.fail(err);
    });
    socket.on('close', () => {
      if (this.stream !== socket) return;
      this.connected = false;
      this.stream = null;
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
