/**
 * nftables backend: Vigil's own table `inet vigil` with four sets (single addresses and prefixes, IPv4 and IPv6,
 * all with per-element kernel timeouts) and base chains on the input, forward and output hooks that drop traffic
 * from and to members. Nothing outside the table is touched. Every change is one `nft -f -` transaction whose script
 * is passed on stdin (still execFile with an argument list, no shell), so a rebuild with 50,000 members is atomic
 * and takes one process.
 */
import { parseAddress } from '../../net/cidr.js';
import { execFileRunner, type CommandRunner } from '../command-runner.js';
import type { AdapterEntry, AppliedState, FirewallAdapter } from './adapter.js';

/** Names used inside the kernel; exported for tests and `vigil firewall status`. */
export const NFT = {
  family: 'inet',
  table: 'vigil',
  sets: { v4: 'v4', v6: 'v6', v4net: 'v4net', v6net: 'v6net' },
  /** Priority below the usual `filter` chains so blocked traffic is dropped before anything else sees it. */
  priority: 'filter - 10',
} as const;

type SetName = (typeof NFT.sets)[keyof typeof NFT.sets];

const TABLE = `${NFT.family} ${NFT.table}`;

function setFor(e: AdapterEntry): SetName {
  if (e.family === 4) return e.isPrefix ? 'v4net' : 'v4';
  return e.isPrefix ? 'v6net' : 'v6';
}

function element(e: AdapterEntry, withTimeout: boolean): string {
  return withTimeout && e.timeoutSeconds !== null && e.timeoutSeconds > 0 ? `${e.key} timeout ${e.timeoutSeconds}s` : e.key;
}

/** Rules of each chain: [chain, hook, match expressions]. Each match gets one `drop` rule. */
const CHAINS: ReadonlyArray<{ chain: string; hook: string; dirs: ReadonlyArray<'saddr' | 'daddr'> }> = [
  { chain: 'input', hook: 'input', dirs: ['saddr'] },
  { chain: 'forward', hook: 'forward', dirs: ['saddr', 'daddr'] },
  { chain: 'output', hook: 'output', dirs: ['daddr'] },
];

function chainRules(dirs: ReadonlyArray<'saddr' | 'daddr'>): string[] {
  const rules: string[] = [];
  for (const dir of dirs) {
    rules.push(`ip ${dir} @v4 drop`, `ip ${dir} @v4net drop`, `ip6 ${dir} @v6 drop`, `ip6 ${dir} @v6net drop`);
  }
  return rules;
}

/** Number of rules each chain holds when intact. */
const EXPECTED_RULES: Record<string, number> = Object.fromEntries(CHAINS.map((c) => [c.chain, chainRules(c.dirs).length]));

/** The table definition (sets and chains, no elements). */
export function nftTableScript(): string {
  const lines = [`table ${TABLE} {`];
  const sets: Array<[SetName, string, string]> = [
    ['v4', 'ipv4_addr', 'timeout'],
    ['v6', 'ipv6_addr', 'timeout'],
    ['v4net', 'ipv4_addr', 'interval, timeout'],
    ['v6net', 'ipv6_addr', 'interval, timeout'],
  ];
  for (const [name, type, flags] of sets) lines.push(`  set ${name} { type ${type}; flags ${flags}; }`);
  for (const c of CHAINS) {
    lines.push(`  chain ${c.chain} {`, `    type filter hook ${c.hook} priority ${NFT.priority}; policy accept;`);
    for (const r of chainRules(c.dirs)) lines.push(`    ${r}`);
    lines.push('  }');
  }
  lines.push('}');
  return lines.join('\n');
}

/** Elements per `add element` line; keeps lines short for nft's parser. */
const CHUNK = 2000;

function addLines(entries: readonly AdapterEntry[], withTimeout: boolean, verb: 'add' | 'delete'): string[] {
  const bySet = new Map<SetName, string[]>();
  for (const e of entries) {
    const set = setFor(e);
    const list = bySet.get(set) ?? [];
    list.push(element(e, withTimeout));
    bySet.set(set, list);
  }
  const lines: string[] = [];
  for (const [set, elems] of bySet) {
    for (let i = 0; i < elems.length; i += CHUNK) lines.push(`${verb} element ${TABLE} ${set} { ${elems.slice(i, i + CHUNK).join(', ')} }`);
  }
  return lines;
}

/** Script that atomically replaces the whole table with one holding exactly `entries`. */
export function nftReplaceScript(entries: readonly AdapterEntry[]): string {
  // Declaring then deleting makes the delete safe when the table does not exist yet; all in one transaction.
  return [`table ${TABLE} {}`, `delete table ${TABLE}`, nftTableScript(), ...addLines(entries, true, 'add')].join('\n') + '\n';
}

/**
 * Script that adds entries, replacing any existing member so a new timeout takes effect. `add` of an existing element
 * is a no-op in nftables, and `delete` of a missing one fails, hence add → delete → add in one transaction.
 */
export function nftAddScript(entries: readonly AdapterEntry[]): string {
  return [...addLines(entries, false, 'add'), ...addLines(entries, false, 'delete'), ...addLines(entries, true, 'add')].join('\n') + '\n';
}

/** Script that removes entries whether or not they are present (add makes the delete safe). */
export function nftRemoveScript(entries: readonly AdapterEntry[]): string {
  return [...addLines(entries, false, 'add'), ...addLines(entries, false, 'delete')].join('\n') + '\n';
}

type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };

function isObj(v: unknown): v is Record<string, JsonValue> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Turns one element of `nft -j` output into a key (`1.2.3.4`, `10.0.0.0/8`), or null for shapes Vigil never creates. */
function elemKey(v: JsonValue): string | null {
  if (typeof v === 'string') return v;
  if (!isObj(v)) return null;
  if (isObj(v.elem)) return elemKey(v.elem.val);
  if (isObj(v.prefix) && typeof v.prefix.addr === 'string' && typeof v.prefix.len === 'number') return `${v.prefix.addr}/${v.prefix.len}`;
  if (Array.isArray(v.range)) return `${String(v.range[0])}-${String(v.range[1])}`;
  return null;
}

/** Parses `nft -j list table inet vigil` output into the applied state. */
export function parseNftTableJson(json: string): AppliedState {
  const doc = JSON.parse(json) as { nftables?: JsonValue[] };
  const members: string[] = [];
  const sets = new Set<string>();
  const chains = new Map<string, string | null>();
  const ruleCount = new Map<string, number>();
  for (const item of doc.nftables ?? []) {
    if (!isObj(item)) continue;
    if (isObj(item.set) && item.set.table === NFT.table) {
      sets.add(String(item.set.name));
      for (const el of Array.isArray(item.set.elem) ? item.set.elem : []) {
        const key = elemKey(el);
        if (key === null) continue;
        try {
          members.push(parseAddress(key).key);
        } catch {
          members.push(key);
        }
      }
    } else if (isObj(item.chain) && item.chain.table === NFT.table) {
      chains.set(String(item.chain.name), typeof item.chain.hook === 'string' ? item.chain.hook : null);
    } else if (isObj(item.rule) && item.rule.table === NFT.table) {
      const c = String(item.rule.chain);
      ruleCount.set(c, (ruleCount.get(c) ?? 0) + 1);
    }
  }
  const intact =
    Object.values(NFT.sets).every((s) => sets.has(s)) &&
    CHAINS.every((c) => chains.get(c.chain) === c.hook && ruleCount.get(c.chain) === EXPECTED_RULES[c.chain]);
  return { intact, members };
}

/** Creates the nftables adapter. `run` defaults to execFile; tests pass a namespace runner. */
export function createNftablesAdapter(run: CommandRunner = execFileRunner): FirewallAdapter {
  const apply = async (script: string): Promise<void> => {
    await run('nft', ['-f', '-'], { input: script });
  };
  return {
    name: 'nftables',
    enforces: true,
    maxTimeoutSeconds: 365 * 24 * 3600,
    replaceAll: (entries) => apply(nftReplaceScript(entries)),
    add: async (entries) => (entries.length === 0 ? undefined : apply(nftAddScript(entries))),
    remove: async (entries) => (entries.length === 0 ? undefined : apply(nftRemoveScript(entries))),
    async inspect() {
      let out: string;
      try {
        out = (await run('nft', ['-j', 'list', 'table', NFT.family, NFT.table])).stdout;
      } catch (err) {
        if (err instanceof Error && /no such file or directory/i.test(err.message)) return { intact: false, members: [] };
        throw err;
      }
      return parseNftTableJson(out);
    },
    teardown: () => apply(`table ${TABLE} {}\ndelete table ${TABLE}\n`),
  };
}
