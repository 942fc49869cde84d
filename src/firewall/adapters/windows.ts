/**
 * Windows Firewall backend through `netsh advfirewall firewall`: blocked addresses are grouped, so thousands of IPs
 * become a few rules. Group N is a pair of rules `Vigil-block-NNN-in` / `Vigil-block-NNN-out` whose `remoteip` lists
 * up to {@link WINDOWS_GROUP_SIZE} addresses; adding or removing one address rewrites one group with `set rule ... new
 * remoteip=`. Windows Firewall has no per-entry timeouts; the service's sweeper expires entries.
 *
 * These are command builders plus a thin adapter; they are unit-tested for their exact argument lists but are not
 * exercised against a live Windows Firewall here (Vigil's CI runs Linux).
 */
import { execFileRunner, type CommandRunner } from '../command-runner.js';
import { tryParseAddress } from '../../net/cidr.js';
import type { AdapterEntry, FirewallAdapter } from './adapter.js';
import type { Command } from './pf.js';

/** Addresses per rule: keeps one `netsh` command line (max 32,767 chars) safe even for long IPv6 prefixes. */
export const WINDOWS_GROUP_SIZE = 400;
/** Rule-name prefix; names have no spaces, so they survive Windows command-line quoting unchanged. */
export const WINDOWS_RULE_PREFIX = 'Vigil-block-';

/** Name of group `index`'s rule for direction `dir`. */
export function windowsRuleName(index: number, dir: 'in' | 'out'): string {
  return `${WINDOWS_RULE_PREFIX}${String(index).padStart(3, '0')}-${dir}`;
}

/** `netsh` arguments creating a blocking rule for `ips` in direction `dir`. */
export function windowsAddRuleCommand(name: string, dir: 'in' | 'out', ips: readonly string[]): Command {
  return {
    file: 'netsh',
    args: ['advfirewall', 'firewall', 'add', 'rule', `name=${name}`, `dir=${dir}`, 'action=block', 'enable=yes', 'profile=any', `remoteip=${ips.join(',')}`],
  };
}

/** `netsh` arguments replacing a rule's address list. */
export function windowsSetRuleIpsCommand(name: string, ips: readonly string[]): Command {
  return { file: 'netsh', args: ['advfirewall', 'firewall', 'set', 'rule', `name=${name}`, 'new', `remoteip=${ips.join(',')}`] };
}

/** `netsh` arguments deleting every rule with this name. */
export function windowsDeleteRuleCommand(name: string): Command {
  return { file: 'netsh', args: ['advfirewall', 'firewall', 'delete', 'rule', `name=${name}`] };
}

/** `netsh` arguments listing all rules (parsed by {@link parseWindowsRules}). */
export function windowsShowRulesCommand(): Command {
  return { file: 'netsh', args: ['advfirewall', 'firewall', 'show', 'rule', 'name=all', 'verbose'] };
}

/** Splits keys into groups of at most `size`. */
export function windowsGroups(keys: readonly string[], size = WINDOWS_GROUP_SIZE): string[][] {
  const groups: string[][] = [];
  for (let i = 0; i < keys.length; i += size) groups.push(keys.slice(i, i + size));
  return groups;
}

/** Commands creating the in/out rule pair of every group for `keys`. */
export function windowsCreateGroupCommands(keys: readonly string[], size = WINDOWS_GROUP_SIZE): Command[] {
  return windowsGroups(keys, size).flatMap((ips, i) => [
    windowsAddRuleCommand(windowsRuleName(i, 'in'), 'in', ips),
    windowsAddRuleCommand(windowsRuleName(i, 'out'), 'out', ips),
  ]);
}

/** Vigil's rules from `netsh ... show rule name=all verbose` output: rule name → remote addresses. */
export function parseWindowsRules(text: string): Map<string, string[]> {
  const rules = new Map<string, string[]>();
  let current: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const m = /^([^:]+):\s*(.*)$/.exec(raw.trim());
    if (!m) continue;
    const [, field, value] = m;
    if (/^rule name$/i.test(field.trim())) {
      current = value.startsWith(WINDOWS_RULE_PREFIX) ? value.trim() : null;
      if (current) rules.set(current, []);
    } else if (current && /^remoteip$/i.test(field.trim())) {
      const ips = value
        .split(',')
        .map((s) => s.trim())
        .map((s) => tryParseAddress(s.replace(/\/(32|128)$/, ''))?.key)
        .filter((k): k is string => k !== undefined);
      rules.set(current, ips);
    }
  }
  return rules;
}

/** Creates the Windows Firewall adapter. Group membership is kept in memory and rebuilt by replaceAll (run at start). */
export function createWindowsAdapter(run: CommandRunner = execFileRunner): FirewallAdapter {
  let groups: Array<Set<string>> = [];
  const exec = async (cmds: Command[]): Promise<void> => {
    for (const c of cmds) await run(c.file, c.args);
  };
  const rewrite = async (index: number): Promise<void> => {
    const ips = [...groups[index]];
    const names = [windowsRuleName(index, 'in'), windowsRuleName(index, 'out')];
    if (ips.length === 0) await exec(names.map(windowsDeleteRuleCommand));
    else await exec(names.map((n) => windowsSetRuleIpsCommand(n, ips)));
  };
  return {
    name: 'windows',
    enforces: true,
    maxTimeoutSeconds: 0,
    async replaceAll(entries: readonly AdapterEntry[]) {
      const show = windowsShowRulesCommand();
      const existing = parseWindowsRules((await run(show.file, show.args)).stdout);
      await exec([...existing.keys()].map(windowsDeleteRuleCommand));
      const keys = entries.map((e) => e.key);
      await exec(windowsCreateGroupCommands(keys));
      groups = windowsGroups(keys).map((g) => new Set(g));
    },
    async add(entries) {
      for (const e of entries) {
        if (groups.some((g) => g.has(e.key))) continue;
        let index = groups.findIndex((g) => g.size < WINDOWS_GROUP_SIZE);
        if (index === -1) {
          index = groups.length;
          groups.push(new Set([e.key]));
          await exec([
            windowsAddRuleCommand(windowsRuleName(index, 'in'), 'in', [e.key]),
            windowsAddRuleCommand(windowsRuleName(index, 'out'), 'out', [e.key]),
          ]);
          continue;
        }
        const wasEmpty = groups[index].size === 0;
        groups[index].add(e.key);
        if (wasEmpty)
          await exec([
            windowsAddRuleCommand(windowsRuleName(index, 'in'), 'in', [e.key]),
            windowsAddRuleCommand(windowsRuleName(index, 'out'), 'out', [e.key]),
          ]);
        else await rewrite(index);
      }
    },
    async remove(entries) {
      for (const e of entries) {
        const index = groups.findIndex((g) => g.has(e.key));
        if (index === -1) continue;
        groups[index].delete(e.key);
        await rewrite(index);
      }
    },
    async inspect() {
      const show = windowsShowRulesCommand();
      const rules = parseWindowsRules((await run(show.file, show.args)).stdout);
      const members = new Set<string>();
      let intact = true;
      for (let i = 0; i < groups.length; i++) {
        if (groups[i].size === 0) continue;
        if (!rules.has(windowsRuleName(i, 'in')) || !rules.has(windowsRuleName(i, 'out'))) intact = false;
      }
      for (const [name, ips] of rules) if (name.endsWith('-in')) ips.forEach((ip) => members.add(ip));
      return { intact, members: [...members] };
    },
    async teardown() {
      const show = windowsShowRulesCommand();
      const existing = parseWindowsRules((await run(show.file, show.args)).stdout);
      await exec([...existing.keys()].map(windowsDeleteRuleCommand));
      groups = [];
    },
  };
}
