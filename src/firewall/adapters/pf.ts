/**
 * pf backend (macOS, BSD): one anchor with one table of blocked addresses and two `block drop quick` rules (from and
 * to table members). The anchor lives under `com.apple/`, which macOS's stock /etc/pf.conf already evaluates, so no
 * edit of the user's pf.conf is needed. pf has no per-entry timeouts; the service's sweeper expires entries.
 *
 * These are command builders plus a thin adapter; they are unit-tested for their exact argument lists but are not
 * exercised against a live pf here (Vigil's CI runs Linux).
 */
import { execFileRunner, type CommandRunner } from '../command-runner.js';
import { parseAddress } from '../../net/cidr.js';
import type { AdapterEntry, FirewallAdapter } from './adapter.js';

/** Anchor and table names. */
export const PF = { anchor: 'com.apple/vigil', table: 'vigil_blocked' } as const;

/** Addresses per `pfctl -T add/delete` invocation, to stay far below argument-length limits. */
export const PF_CHUNK = 1000;

/** A command to run: program and argument list, plus optional stdin. */
export interface Command {
  file: string;
  args: string[];
  input?: string;
}

/** The anchor's ruleset (loaded with `pfctl -a ANCHOR -f -`). */
export function pfAnchorRules(): string {
  return [`table <${PF.table}> persist`, `block drop quick from <${PF.table}> to any`, `block drop quick from any to <${PF.table}>`, ''].join('\n');
}

/** Commands that load the anchor rules, replace the table with exactly `entries`, and enable pf (reference-counted). */
export function pfReplaceCommands(entries: readonly AdapterEntry[]): Command[] {
  return [
    { file: 'pfctl', args: ['-a', PF.anchor, '-f', '-'], input: pfAnchorRules() },
    { file: 'pfctl', args: ['-a', PF.anchor, '-t', PF.table, '-T', 'replace', '-f', '-'], input: entries.map((e) => e.key).join('\n') + '\n' },
    { file: 'pfctl', args: ['-E'] },
  ];
}

function chunked(op: 'add' | 'delete', entries: readonly AdapterEntry[]): Command[] {
  const out: Command[] = [];
  for (let i = 0; i < entries.length; i += PF_CHUNK) {
    out.push({ file: 'pfctl', args: ['-a', PF.anchor, '-t', PF.table, '-T', op, ...entries.slice(i, i + PF_CHUNK).map((e) => e.key)] });
  }
  return out;
}

/** `pfctl -T add` commands for `entries`. */
export function pfAddCommands(entries: readonly AdapterEntry[]): Command[] {
  return chunked('add', entries);
}

/** `pfctl -T delete` commands for `entries`. */
export function pfRemoveCommands(entries: readonly AdapterEntry[]): Command[] {
  return chunked('delete', entries);
}

/** Command listing the table's members (one per line). */
export function pfShowCommand(): Command {
  return { file: 'pfctl', args: ['-a', PF.anchor, '-t', PF.table, '-T', 'show'] };
}

/** Command listing the anchor's rules. */
export function pfRulesCommand(): Command {
  return { file: 'pfctl', args: ['-a', PF.anchor, '-s', 'rules'] };
}

/** Command flushing everything in the anchor (rules and tables). */
export function pfTeardownCommand(): Command {
  return { file: 'pfctl', args: ['-a', PF.anchor, '-F', 'all'] };
}

/** Creates the pf adapter. */
export function createPfAdapter(run: CommandRunner = execFileRunner): FirewallAdapter {
  const exec = async (cmds: Command[]): Promise<void> => {
    for (const c of cmds) await run(c.file, c.args, c.input === undefined ? undefined : { input: c.input });
  };
  return {
    name: 'pf',
    enforces: true,
    maxTimeoutSeconds: 0,
    replaceAll: (entries) => exec(pfReplaceCommands(entries)),
    add: (entries) => exec(pfAddCommands(entries)),
    remove: (entries) => exec(pfRemoveCommands(entries)),
    async inspect() {
      const show = pfShowCommand();
      const rulesCmd = pfRulesCommand();
      const [members, rules] = await Promise.all([run(show.file, show.args), run(rulesCmd.file, rulesCmd.args)]);
      const keys = members.stdout
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '')
        .map((l) => parseAddress(l).key);
      const blockRules = rules.stdout.split('\n').filter((l) => l.includes(`<${PF.table}>`) && l.startsWith('block drop quick')).length;
      return { intact: blockRules === 2, members: keys };
    },
    teardown: () => exec([pfTeardownCommand()]),
  };
}
