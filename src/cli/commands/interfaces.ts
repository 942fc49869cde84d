/** `vigil interfaces [--json]`: the capture devices libpcap can open, with their flags and addresses. */
import { parseArgs } from 'node:util';
import { listInterfaces } from '../../native/capture.js';
import { terminalJson, terminalText as t } from '../terminal-text.js';

const USAGE = 'usage: vigil interfaces [--json]\n';

export async function run(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args, options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (err) {
    process.stderr.write(`vigil interfaces: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const devices = listInterfaces();
  if (values.json) {
    process.stdout.write(`${terminalJson(devices)}\n`);
    return 0;
  }
  if (devices.length === 0) {
    process.stdout.write('no capture devices found (capturing may need root or CAP_NET_RAW)\n');
    return 0;
  }
  for (const d of devices) {
    const flags = [d.up ? 'up' : 'down', d.running ? 'running' : '', d.loopback ? 'loopback' : '', d.wireless ? 'wireless' : ''].filter(Boolean).join(',');
    const desc = d.description ? `  ${t(d.description)}` : '';
    process.stdout.write(`${t(d.name).padEnd(16)} [${flags}]${desc}\n`);
    for (const a of d.addresses) process.stdout.write(`${''.padEnd(16)}   ${t(a)}\n`);
  }
  return 0;
}
