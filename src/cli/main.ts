/**
 * The `vigil` command line: the only composition root. Each subcommand lives in `commands/<name>.ts` and exports
 * `run(args)`; modules are loaded lazily so `vigil replay` does not pay for the HTTP servers.
 */
import { AppError } from '../errors.js';
import { terminalText } from './terminal-text.js';

/** A subcommand: takes its own argv tail, returns the process exit code. */
export type Command = (args: string[]) => Promise<number>;

const COMMANDS: Record<string, { summary: string; load: () => Promise<{ run: Command }> }> = {
  start: { summary: 'run the sensor, the store and the desktop REST API (the default)', load: () => import('./commands/start.js') },
  interfaces: { summary: 'list capture devices', load: () => import('./commands/interfaces.js') },
  replay: { summary: 'replay a pcap/pcapng file and summarise its flows', load: () => import('./commands/replay.js') },
  capture: { summary: 'capture live on an interface: vigil capture -i IFACE [-f BPF]', load: () => import('./commands/capture.js') },
  pair: { summary: 'print the desktop API URL, pairing token and a QR code for the mobile app', load: () => import('./commands/pair.js') },
  firewall: { summary: 'firewall status and maintenance: vigil firewall status', load: () => import('./commands/firewall.js') },
  web: { summary: 'run the Web API (license keys, landing page)', load: () => import('./commands/web.js') },
};

function usage(): string {
  const lines = ['usage: vigil <command> [options]', '', 'commands:'];
  for (const [name, c] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(11)} ${c.summary}`);
  lines.push('', 'Run `vigil <command> --help` for the options of one command.');
  return lines.join('\n');
}

/** Entry point; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name = 'start', ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`vigil: unknown command '${terminalText(name)}'\n\n${usage()}\n`);
    return 2;
  }
  try {
    const mod = await command.load();
    return await mod.run(rest);
  } catch (err) {
    if (err instanceof AppError) {
      process.stderr.write(`vigil ${name}: ${terminalText(err.message)}\n`);
      return 1;
    }
    throw err;
  }
}
