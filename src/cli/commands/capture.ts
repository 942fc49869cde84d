/**
 * `vigil capture -i IFACE [-f BPF] [--json | --summary-only] [--count N] [--duration SEC]`: live capture until
 * SIGINT/SIGTERM (or until N packets were read / SEC seconds passed), then the same summary as `vigil replay`.
 */
import { parseArgs } from 'node:util';
import { createSensor } from '../../native/capture.js';
import { terminalJson, terminalText } from '../terminal-text.js';
import { loadCaptureCoreConfig } from '../../config/capture-core.js';
import { ArpBindings, arpAsJsonLines, attachFlowOutput, formatSummary, outputMode, summaryObject, TopFlows, write } from './replay.js';

const USAGE = `usage: vigil capture -i IFACE [-f BPF] [--json | --summary-only] [--count N] [--duration SEC]
  -i, --interface  device to capture on (see \`vigil interfaces\`)
  -f, --filter     BPF filter expression
  --json           one JSON object per finished flow, then {"summary": {...}}
  --summary-only   only the {"summary": {...}} line
  --count N        stop after N packets were read
  --duration SEC   stop after SEC seconds
  --snaplen N      bytes captured per packet (default 262144)
  --no-promisc     do not put the interface in promiscuous mode
  --top N          flows listed in the readable summary (default 10)
Stops on SIGINT (Ctrl-C) or SIGTERM and prints the summary.
`;

export async function run(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        interface: { type: 'string', short: 'i' },
        filter: { type: 'string', short: 'f' },
        json: { type: 'boolean' },
        'summary-only': { type: 'boolean' },
        count: { type: 'string' },
        duration: { type: 'string' },
        snaplen: { type: 'string' },
        'no-promisc': { type: 'boolean' },
        top: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    process.stderr.write(`vigil capture: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values } = parsed;
  if (values.help) {
    write(USAGE);
    return 0;
  }
  if (!values.interface) {
    process.stderr.write(`vigil capture: -i IFACE is required\n${USAGE}`);
    return 2;
  }
  const count = values.count === undefined ? 0 : Number(values.count);
  const duration = values.duration === undefined ? 0 : Number(values.duration);
  const snaplen = values.snaplen === undefined ? undefined : Number(values.snaplen);
  const topN = values.top === undefined ? 10 : Number(values.top);
  if (![count, duration, topN].every((n) => Number.isFinite(n) && n >= 0) || (snaplen !== undefined && !(snaplen > 0))) {
    process.stderr.write('vigil capture: --count, --duration, --top must be numbers >= 0 and --snaplen > 0\n');
    return 2;
  }
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
  const stop = (): void => {
    void sensor.stop();
  };
  if (count > 0) {
    sensor.on('stats', (s) => {
      if (s.packets >= count) stop();
    });
  }
  const ended = new Promise<void>((resolve) => sensor.on('end', () => resolve()));
  const t0 = process.hrtime.bigint();
  await sensor.start(
    { kind: 'live', interface: values.interface, filter: values.filter, snaplen, promiscuous: !values['no-promisc'] },
    { snapshotIntervalSec: 0, statsIntervalMs: count > 0 ? 50 : 1000, ...core },
  );
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const timer = duration > 0 ? setTimeout(stop, duration * 1000) : undefined;
  if (mode === 'text')
    process.stderr.write(`capturing on ${terminalText(`${values.interface}${values.filter ? ` (${values.filter})` : ''}`)}; Ctrl-C to stop\n`);
  await ended;
  if (timer) clearTimeout(timer);
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const stats = sensor.stats();
  if (failure) throw failure;
  if (mode === 'json') write(arpAsJsonLines(arp.items));
  if (mode === 'text') write(formatSummary(`capture ${values.interface}`, stats, top.items, wallMs, arp.items));
  else write(`${terminalJson({ summary: summaryObject(stats, { interface: values.interface, filter: values.filter ?? null }, wallMs) })}\n`);
  return 0;
}
