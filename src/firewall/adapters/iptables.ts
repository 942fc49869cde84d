/**
 * iptables + ipset backend (for systems without nftables), the same model as nftables: two own ipsets (`vigil4`,
 * `vigil6`, type hash:net with per-entry timeouts), one own chain `VIGIL` in the filter table of iptables and
 * ip6tables dropping traffic from and to members, and exactly one jump rule to it from INPUT, FORWARD and OUTPUT.
 * Membership changes go through one `ipset restore` process each (script on stdin); a full rebuild fills a
 * temporary set and swaps it in, so it is atomic. Everything is idempotent.
 */
import { parseAddress } from '../../net/cidr.js';
import { CommandError, execFileRunner, type CommandRunner } from '../command-runner.js';
import type { AdapterEntry, AppliedState, FirewallAdapter } from './adapter.js';

/** Kernel object names; exported for tests. */
export const IPT = {
  chain: 'VIGIL',
  sets: { 4: 'vigil4', 6: 'vigil6' },
  hooks: ['INPUT', 'FORWARD', 'OUTPUT'],
  /** hash:net capacity; ipset's default (65536) is too small for large block lists. */
  maxElem: 1048576,
} as const;

/** iptables waits up to this many seconds for the xtables lock instead of failing when another tool holds it. */
const LOCK_WAIT = ['-w', '5'];

const FAMILIES = [
  { family: 4 as const, ipt: 'iptables', restore: 'iptables-restore', inet: 'inet' },
  { family: 6 as const, ipt: 'ip6tables', restore: 'ip6tables-restore', inet: 'inet6' },
];

function createLine(name: string, inet: string): string {
  return `create ${name} hash:net family ${inet} timeout 0 maxelem ${IPT.maxElem}`;
}

function timeoutOf(e: AdapterEntry): number {
  return e.timeoutSeconds !== null && e.timeoutSeconds > 0 ? e.timeoutSeconds : 0;
}

/** `ipset restore` script that atomically replaces both sets' contents with `entries`. */
export function ipsetReplaceScript(entries: readonly AdapterEntry[]): string {
  const lines: string[] = [];
  for (const f of FAMILIES) {
    const name = IPT.sets[f.family];
    const tmp = `${name}-new`;
    lines.push(createLine(name, f.inet), createLine(tmp, f.inet), `flush ${tmp}`);
    for (const e of entries) if (e.family === f.family) lines.push(`add ${tmp} ${e.key} timeout ${timeoutOf(e)}`);
    lines.push(`swap ${tmp} ${name}`, `destroy ${tmp}`);
  }
  return `${lines.join('\n')}\n`;
}

/** `ipset restore -exist` script adding entries (an existing member gets the new timeout; 0 = permanent). */
export function ipsetAddScript(entries: readonly AdapterEntry[]): string {
  return entries.map((e) => `add ${IPT.sets[e.family]} ${e.key} timeout ${timeoutOf(e)}`).join('\n') + '\n';
}

/** `ipset restore -exist` script removing entries (missing members are ignored thanks to -exist). */
export function ipsetRemoveScript(entries: readonly AdapterEntry[]): string {
  return entries.map((e) => `del ${IPT.sets[e.family]} ${e.key}`).join('\n') + '\n';
}

/** The chain's rules in `iptables -S` form, for one family. */
export function chainRuleSpecs(family: 4 | 6): string[][] {
  const set = IPT.sets[family];
  return [
    ['-A', IPT.chain, '-m', 'set', '--match-set', set, 'src', '-j', 'DROP'],
    ['-A', IPT.chain, '-m', 'set', '--match-set', set, 'dst', '-j', 'DROP'],
  ];
}

/** `iptables-restore --noflush` script that (re)declares the chain, which flushes it, and fills it, in one commit. */
export function chainRestoreScript(family: 4 | 6): string {
  return ['*filter', `:${IPT.chain} - [0:0]`, ...chainRuleSpecs(family).map((r) => r.join(' ')), 'COMMIT', ''].join('\n');
}

/** Parses `ipset save NAME` output into member keys. */
export function parseIpsetSave(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^add \S+ (\S+)/.exec(line);
    if (!m) continue;
    try {
      out.push(parseAddress(m[1]).key);
    } catch {
      out.push(m[1]);
    }
  }
  return out;
}

/** Checks `iptables -S` output (whole filter table): chain rules as built, and exactly one jump from each hook. */
export function iptablesIntact(saveText: string, family: 4 | 6): boolean {
  const lines = saveText.split('\n').map((l) => l.trim());
  const own = lines.filter((l) => l.startsWith(`-A ${IPT.chain} `));
  const want = chainRuleSpecs(family).map((r) => r.join(' '));
  if (own.length !== want.length || !want.every((w, i) => own[i] === w)) return false;
  return IPT.hooks.every((hook) => lines.filter((l) => l === `-A ${hook} -j ${IPT.chain}`).length === 1);
}

/** Creates the iptables/ipset adapter. */
export function createIptablesAdapter(run: CommandRunner = execFileRunner): FirewallAdapter {
  const ensureChains = async (): Promise<void> => {
    for (const f of FAMILIES) {
      await run(f.restore, [...LOCK_WAIT, '--noflush'], { input: chainRestoreScript(f.family) });
      // Exactly one jump per hook: insert when missing, drop duplicates a user or an old version added.
      const listing = (await run(f.ipt, [...LOCK_WAIT, '-S'])).stdout.split('\n').map((l) => l.trim());
      for (const hook of IPT.hooks) {
        const count = listing.filter((l) => l === `-A ${hook} -j ${IPT.chain}`).length;
        if (count === 0) await run(f.ipt, [...LOCK_WAIT, '-I', hook, '1', '-j', IPT.chain]);
        for (let i = 1; i < count; i++) await run(f.ipt, [...LOCK_WAIT, '-D', hook, '-j', IPT.chain]);
      }
    }
  };

  const restore = async (script: string): Promise<void> => {
    await run('ipset', ['-exist', 'restore'], { input: script });
  };

  const ensureSets = async (): Promise<void> => {
    await restore(FAMILIES.map((f) => createLine(IPT.sets[f.family], f.inet)).join('\n') + '\n');
  };

  return {
    name: 'iptables',
    enforces: true,
    maxTimeoutSeconds: 2147483,
    async replaceAll(entries) {
      await restore(ipsetReplaceScript(entries));
      await ensureChains();
    },
    async add(entries) {
      if (entries.length === 0) return;
      await ensureSets();
      await restore(ipsetAddScript(entries));
    },
    async remove(entries) {
      if (entries.length === 0) return;
      await ensureSets();
      await restore(ipsetRemoveScript(entries));
    },
    async inspect(): Promise<AppliedState> {
      const members: string[] = [];
      let intact = true;
      for (const f of FAMILIES) {
        try {
          members.push(...parseIpsetSave((await run('ipset', ['save', IPT.sets[f.family]])).stdout));
        } catch (err) {
          if (err instanceof CommandError && !err.permissionDenied) intact = false;
          else throw err;
        }
        const rules = await run(f.ipt, [...LOCK_WAIT, '-S']);
        if (!iptablesIntact(rules.stdout, f.family)) intact = false;
      }
      return { intact, members };
    },
    async teardown() {
      for (const f of FAMILIES) {
        for (const hook of IPT.hooks) {
          for (let i = 0; i < 16; i++) {
            try {
              await run(f.ipt, [...LOCK_WAIT, '-D', hook, '-j', IPT.chain]);
            } catch {
              break;
            }
          }
        }
        for (const args of [
          ['-F', IPT.chain],
          ['-X', IPT.chain],
        ]) {
          try {
            await run(f.ipt, [...LOCK_WAIT, ...args]);
          } catch {
            // Chain already gone.
          }
        }
      }
      for (const f of FAMILIES) {
        try {
          await run('ipset', ['destroy', IPT.sets[f.family]]);
        } catch {
          // Set already gone.
        }
      }
    },
  };
}
