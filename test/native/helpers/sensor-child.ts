/**
 * Child process for the live-capture and exit tests: `node --import tsx sensor-child.ts MODE ...`.
 *  - `live IFACE FILTER`: starts a live capture, prints `ready`, stops on a `stop` line on stdin, prints one JSON
 *    line `{flows, stats}` and exits 0. `live-processes IFACE FILTER`: the same with process
 *    attribution on.
 *  - `exit-live IFACE` / `exit-file PATH`: starts a capture (live, or a paced file replay) and calls
 *    `process.exit(3)` from the first stats event without stopping: the addon's cleanup hook must end the capture
 *    thread so the process exits with code 3.
 */
import { createInterface } from 'node:readline';
import { createSensor } from '../../../src/native/capture.js';
import type { FlowRecord } from '../../../src/native/types.js';

const [mode, arg, filter] = process.argv.slice(2);
const sensor = createSensor();

if (mode === 'live' || mode === 'live-processes') {
  const flows: FlowRecord[] = [];
  sensor.on('flows', (b) => flows.push(...b.filter((f) => f.endReason !== 'snapshot')));
  await sensor.start({ kind: 'live', interface: arg, filter, promiscuous: false }, { statsIntervalMs: 100, processes: mode === 'live-processes' });
  process.stdout.write('ready\n');
  const rl = createInterface({ input: process.stdin });
  for await (const line of rl) {
    if (line.trim() === 'stop') break;
  }
  const stats = await sensor.stop();
  process.stdout.write(`${JSON.stringify({ flows, stats })}\n`);
  process.exit(0);
} else if (mode === 'exit-live' || mode === 'exit-file') {
  sensor.on('stats', () => process.exit(3));
  await sensor.start(mode === 'exit-live' ? { kind: 'live', interface: arg } : { kind: 'file', path: arg, speed: 1 }, { statsIntervalMs: 50 });
  process.stdout.write('started\n');
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
