/**
 * `vigil replay FILE [--json | --summary-only] [-f BPF] [--speed N] [--top N]`: replays a pcap/pcapng file through
 * the capture core. Default output is a readable summary (per-protocol counts, top flows, error counters); `--json`
 * prints one JSON object per finished flow and a last line `{"summary": {...}}`; `--summary-only` prints only that
 * last line. Also exports the output helpers `vigil capture` shares.
 */
import { parseArgs } from 'node:util';
import { loadCaptureCoreConfig } from '../../config/capture-core.js';
import { type ArpBinding, type CaptureSensor, type CaptureStats, createSensor } from '../../native/capture.js';
import type { FlowRecord } from '../../native/types.js';
import { terminalJson, terminalText } from '../terminal-text.js';

/** How a command prints flows and the final summary. */
export type OutputMode = 'text' | 'json' | 'summary';

/** The `summary` object: every counter of the session plus where it came from and how long it took (wall ms). */
export function summaryObject(stats: CaptureStats, origin: Record<string, unknown>, wallMs: number): Record<string, unknown> {
  return { ...origin, ...stats, wallMs: Math.round(wallMs * 1000) / 1000 };
}

/** Writes text to stdout, ignoring EPIPE (`| head`). */
export function write(text: string): void {
  if (text.length === 0) return;
  try {
    process.stdout.write(text);
  } catch {
    // stdout closed by the reader: nothing more to do
  }
}

process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
});

/** One JSON line per flow (terminal-safe: names and URIs come from the wire). */
export function flowsAsJsonLines(flows: FlowRecord[]): string {
  let out = '';
  for (const f of flows) out += `${terminalJson(f)}\n`;
  return out;
}

function human(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} k`;
  return String(n);
}

function endpoint(ip: string, port: number, protocol: number): string {
  const host = ip.includes(':') ? `[${ip}]` : ip;
  return protocol === 6 || protocol === 17 ? `${host}:${port}` : host;
}

const PROTO_NAMES: Record<number, string> = { 1: 'icmp', 6: 'tcp', 17: 'udp', 58: 'icmpv6' };

/** What a flow is, as far as the application layer knows: `tls example.com`, `dns? `, ... (empty when nothing). */
function appText(f: FlowRecord): string {
  if (!f.app && !f.serverName) return '';
  const label = f.app ? `${f.app}${f.appBy === 'port' ? '?' : ''}` : '';
  return `  ${terminalText([label, f.serverName ?? ''].filter((s) => s !== '').join(' '))}`;
}

/** The readable summary: totals, protocols, top flows by bytes, decode error counters, ARP bindings. */
export function formatSummary(title: string, stats: CaptureStats, top: FlowRecord[], wallMs: number, arp: readonly ArpTotals[] = []): string {
  const lines: string[] = [];
  lines.push(terminalText(title));
  lines.push(
    `  packets ${stats.packets}  bytes ${stats.bytes} (${human(stats.bytes)}B)  flows ${stats.flows}` +
      (stats.flowsEvicted > 0 ? `  evicted ${stats.flowsEvicted}` : '') +
      `  in ${(wallMs / 1000).toFixed(3)} s`,
  );
  lines.push('', '  protocol      packets          bytes    flows');
  for (const [name, p] of Object.entries(stats.protocols)) {
    if (p.packets === 0 && p.flows === 0) continue;
    lines.push(`  ${name.padEnd(10)} ${String(p.packets).padStart(10)} ${String(p.bytes).padStart(14)} ${String(p.flows).padStart(8)}`);
  }
  if (top.length > 0) {
    lines.push('', `  top ${top.length} flows by bytes`);
    for (const f of top) {
      const proto = PROTO_NAMES[f.protocol] ?? `ip/${f.protocol}`;
      const vlan = f.vlanOuter || f.vlanInner ? ` vlan ${f.vlanOuter}${f.vlanInner ? `/${f.vlanInner}` : ''}` : '';
      lines.push(
        `  ${proto.padEnd(6)} ${endpoint(f.srcIp, f.srcPort, f.protocol)} -> ${endpoint(f.dstIp, f.dstPort, f.protocol)}${vlan}` +
          `  ${f.packets} pkts ${f.bytes} B  ${(f.durationUs / 1e6).toFixed(3)} s  ${f.endReason}${appText(f)}`,
      );
    }
  }
  const apps = Object.entries(stats.appLayer?.flowsByApp ?? {}).sort((a, b) => b[1] - a[1]);
  if (apps.length > 0) lines.push('', `  applications (flows, by content): ${apps.map(([name, n]) => `${name} ${n}`).join(', ')}`);
  if (arp.length > 0) {
    lines.push('', '  ARP bindings');
    for (const b of arp) lines.push(`  ${terminalText(b.senderIp.padEnd(15))} is-at ${terminalText(b.senderMac)}  requests ${b.requests} replies ${b.replies}`);
  }
  const errors = Object.entries(stats.decodeErrors).filter(([, n]) => n > 0);
  lines.push('', errors.length === 0 ? '  decode errors: none' : '  decode errors');
  for (const [reason, n] of errors) lines.push(`  ${reason.padEnd(24)} ${n}`);
  const appErrors = Object.entries(stats.appLayer?.errors ?? {}).filter(([, n]) => n > 0);
  if (appErrors.length > 0) lines.push('', '  application-layer messages not read');
  for (const [reason, n] of appErrors) lines.push(`  ${reason.padEnd(24)} ${n}`);
  if (stats.pcap.received > 0 || stats.pcap.dropped > 0) {
    lines.push('', `  pcap: received ${stats.pcap.received} dropped ${stats.pcap.dropped} if-dropped ${stats.pcap.ifDropped}`);
  }
  if (stats.batchesDropped > 0) lines.push(`  batches dropped (JS too slow): ${stats.batchesDropped}`);
  return `${lines.join('\n')}\n`;
}

/** Keeps the N largest flows by bytes without holding every flow. */
export class TopFlows {
  readonly #n: number;
  #items: FlowRecord[] = [];
  constructor(n: number) {
    this.#n = n;
  }
  add(flows: FlowRecord[]): void {
    if (this.#n <= 0) return;
    for (const f of flows) {
      if (this.#items.length < this.#n) {
        this.#items.push(f);
      } else if (f.bytes > this.#items[this.#items.length - 1].bytes) {
        this.#items[this.#items.length - 1] = f;
      } else {
        continue;
      }
      this.#items.sort((a, b) => b.bytes - a.bytes);
    }
  }
  get items(): FlowRecord[] {
    return this.#items;
  }
}

/** An ARP binding's totals: what a session's summary shows (the new targets' times are per event, not totals). */
export type ArpTotals = Omit<ArpBinding, 'newTargetTimes'>;

/** ARP bindings of a session, latest totals per (IP, MAC), in address order. */
export class ArpBindings {
  readonly #byKey = new Map<string, ArpTotals>();
  add(bindings: readonly ArpBinding[]): void {
    for (const { newTargetTimes: _times, ...totals } of bindings) this.#byKey.set(`${totals.senderIp} ${totals.senderMac}`, totals);
  }
  get items(): ArpTotals[] {
    const key = (b: ArpTotals): string =>
      `${b.senderIp
        .split('.')
        .map((o) => o.padStart(3, '0'))
        .join('.')} ${b.senderMac}`;
    return [...this.#byKey.values()].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  }
}

/** `{"arp": {...}}` lines, one per binding. */
export function arpAsJsonLines(bindings: readonly ArpTotals[]): string {
  let out = '';
  for (const b of bindings) out += `${terminalJson({ arp: b })}\n`;
  return out;
}

/** Sends a sensor's finished flows to the output: JSON lines, or the top-N table; summary mode listens to no flows
 * (so the sensor skips decoding them). ARP bindings are collected into `arp` (printed at the end). */
export function attachFlowOutput(sensor: CaptureSensor, mode: OutputMode, top: TopFlows, arp?: ArpBindings): void {
  if (mode === 'summary') return;
  if (arp) sensor.on('arp', (bindings) => arp.add(bindings));
  sensor.on('flows', (batch) => {
    const finished = batch.filter((f) => f.endReason !== 'snapshot');
    if (mode === 'json') write(flowsAsJsonLines(finished));
    else top.add(finished);
  });
}

/** Parses --json / --summary-only into an output mode. */
export function outputMode(values: { json?: boolean; 'summary-only'?: boolean }): OutputMode {
  if (values['summary-only']) return 'summary';
  if (values.json) return 'json';
  return 'text';
}

const USAGE = `usage: vigil replay FILE [--json | --summary-only] [-f BPF] [--speed N] [--top N]
  --json           one JSON object per finished flow, then {"summary": {...}}
  --summary-only   only the {"summary": {...}} line
  -f, --filter     BPF filter expression
  --speed N        pace at N x real time (default: as fast as possible)
  --top N          flows listed in the readable summary (default 10)
`;

export async function run(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        'summary-only': { type: 'boolean' },
        filter: { type: 'string', short: 'f' },
        speed: { type: 'string' },
        top: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    process.stderr.write(`vigil replay: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    write(USAGE);
    return 0;
  }
  if (positionals.length !== 1) {
    process.stderr.write(`vigil replay: expected exactly one capture file\n${USAGE}`);
    return 2;
  }
  const speed = values.speed === undefined ? 0 : Number(values.speed);
  const topN = values.top === undefined ? 10 : Number(values.top);
  if (!Number.isFinite(speed) || speed < 0 || !Number.isInteger(topN) || topN < 0) {
    process.stderr.write(`vigil replay: --speed must be a number >= 0 and --top an integer >= 0\n`);
    return 2;
  }
  const file = positionals[0];
  const mode = outputMode(values);
  const top = new TopFlows(mode === 'text' ? topN : 0);
  const core = loadCaptureCoreConfig();
  const sensor = createSensor();
  const arp = new ArpBindings();
  let failure: Error | undefined;
  attachFlowOutput(sensor, mode, top, arp);
  sensor.on('error', (err) => {
    failure = err;
  });
  const ended = new Promise<void>((resolve) => sensor.on('end', () => resolve()));
  // Not performance.now(): the `performance` global loads perf_hooks (ten internal modules) on first use, ~2 ms of a
  // start that a batch tool pays per file.
  const t0 = process.hrtime.bigint();
  await sensor.start({ kind: 'file', path: file, filter: values.filter, speed }, { snapshotIntervalSec: 0, ...core });
  await ended;
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const stats = sensor.stats();
  if (failure) throw failure;
  if (mode === 'text') write(formatSummary(`replay ${file}`, stats, top.items, wallMs, arp.items));
  else {
    if (mode === 'json') write(arpAsJsonLines(arp.items));
    write(`${terminalJson({ summary: summaryObject(stats, { file }, wallMs) })}\n`);
  }
  return 0;
}
