/**
 * Firewall benchmark (`npm run bench -- firewall [--entries N] [--ops N] [--backends nftables,iptables]`).
 *
 * For each backend, in a fresh network namespace (the host's firewall is never touched) with a real SQLite store:
 * - store load: inserting N (default 50,000) blocked addresses (v4 and v6 mixed, 10% with an expiry) in one pass;
 * - bulk apply: `service.start()`, i.e. reading the store and rebuilding Vigil's table with N members in one
 *   transaction (nftables: one `nft -f -`; iptables: one `ipset restore` + swap), and the members the kernel reports;
 * - block one more / unblock it again through the service (validate, protected check, OS, store, audit), median and
 *   p95 of --ops (default 30) operations each, with N members present;
 * - status (inspect: list all N members) and a no-drift reconcile.
 * Needs root (network namespaces, CAP_NET_ADMIN); otherwise prints `{ "skipped": reason }`. Prints one JSON object as
 * its last stdout line; progress goes to stderr.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { loadFirewallConfig } from '../src/config/firewall.js';
import type { BackendName } from '../src/firewall/adapters/adapter.js';
import { createAdapter } from '../src/firewall/backend.js';
import { netnsRunner } from '../src/firewall/command-runner.js';
import { parseAddress } from '../src/net/cidr.js';
import { createFirewallService } from '../src/firewall/firewall.service.js';
import { closeStore, openStore } from '../src/store/database.js';
import { insertBlockedIps } from '../src/store/repos/blocked-ip.repo.js';
import type { NewBlockedIp } from '../src/store/tables/blocked-ip.table.js';

function log(msg: string): void {
  process.stderr.write(`bench firewall: ${msg}\n`);
}

const round = (x: number, digits = 2): number => Math.round(x * 10 ** digits) / 10 ** digits;
function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** N distinct public-looking addresses: 80% IPv4 in 100.64.0.0/10 and 20% IPv6 in 2001:db8::/32. */
function rows(n: number, nowMs: number): NewBlockedIp[] {
  const at = new Date(nowMs).toISOString();
  const out: NewBlockedIp[] = [];
  for (let i = 0; i < n; i++) {
    const v6 = i % 5 === 4;
    const raw = v6 ? `2001:db8:${(i >> 16).toString(16)}::${(i & 0xffff).toString(16)}` : `100.${64 + ((i >> 16) & 63)}.${(i >> 8) & 255}.${i & 255}`;
    // Keys are stored normalised, exactly as the service would store them.
    const ip = parseAddress(raw).key;
    out.push({
      ip,
      family: v6 ? 6 : 4,
      reason: 'bench',
      source: 'system',
      blocked_at: at,
      updated_at: at,
      expires_at: i % 10 === 0 ? new Date(nowMs + 86_400_000).toISOString() : null,
    });
  }
  return out;
}

async function benchBackend(backend: BackendName, entries: number, ops: number): Promise<Record<string, unknown>> {
  const ns = `vfwbench-${process.pid}-${backend}`;
  const dir = mkdtempSync(path.join(tmpdir(), 'vigil-fw-bench-'));
  execFileSync('ip', ['netns', 'add', ns]);
  try {
    const run = netnsRunner(ns);
    const db = await openStore(path.join(dir, 'vigil.db'));
    let t = performance.now();
    await insertBlockedIps(db, rows(entries, Date.now()));
    const storeLoadMs = performance.now() - t;
    log(`${backend}: stored ${entries} rows in ${round(storeLoadMs)} ms`);

    const service = createFirewallService({
      db,
      adapter: createAdapter(backend, run),
      config: { ...loadFirewallConfig({}), reassertIntervalMs: 0 },
      protectedAddresses: () => ({ self: [], gateways: [], dns: [], allowlist: [] }),
      log: (m) => log(m),
    });
    t = performance.now();
    await service.start();
    const bulkApplyMs = performance.now() - t;
    t = performance.now();
    const status = await service.status();
    const statusMs = performance.now() - t;
    log(`${backend}: bulk apply ${round(bulkApplyMs)} ms, ${String(status.applied)} members applied (status ${round(statusMs)} ms)`);
    if (status.applied !== entries) throw new Error(`${backend}: expected ${entries} applied members, the kernel reports ${String(status.applied)}`);

    const blockMs: number[] = [];
    const unblockMs: number[] = [];
    for (let i = 0; i < ops; i++) {
      const ip = i % 2 === 0 ? `198.18.${i >> 8}.${(i & 255) + 1}` : `2001:db8:ffff::${(i + 1).toString(16)}`;
      t = performance.now();
      await service.block({ ip, reason: 'bench', actor: 'cli' });
      blockMs.push(performance.now() - t);
      t = performance.now();
      await service.unblock(ip, 'cli');
      unblockMs.push(performance.now() - t);
    }
    t = performance.now();
    const drift = await service.reconcile();
    const reconcileMs = performance.now() - t;
    if (drift.repaired) throw new Error(`${backend}: unexpected drift ${JSON.stringify(drift)}`);
    await service.stop();
    await closeStore(db);
    return {
      entries,
      storeLoadMs: round(storeLoadMs),
      bulkApplyMs: round(bulkApplyMs),
      bulkApplyEntriesPerSec: Math.round(entries / (bulkApplyMs / 1000)),
      appliedMembers: status.applied,
      blockOneMoreMs: { median: round(pct(blockMs, 50)), p95: round(pct(blockMs, 95)), ops },
      unblockOneMs: { median: round(pct(unblockMs, 50)), p95: round(pct(unblockMs, 95)), ops },
      statusInspectMs: round(statusMs),
      reconcileNoDriftMs: round(reconcileMs),
    };
  } finally {
    try {
      execFileSync('ip', ['netns', 'del', ns]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    strict: false,
    options: {
      entries: { type: 'string', default: '50000' },
      ops: { type: 'string', default: '30' },
      backends: { type: 'string', default: 'nftables,iptables' },
    },
  });
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    process.stdout.write(`${JSON.stringify({ skipped: 'needs root (network namespaces and CAP_NET_ADMIN)' })}\n`);
    return;
  }
  const entries = Number(values.entries);
  const ops = Number(values.ops);
  const result: Record<string, unknown> = { note: 'each backend runs in its own network namespace; times include process start-up of nft/ipset' };
  for (const backend of String(values.backends).split(',') as BackendName[]) {
    result[backend] = await benchBackend(backend, entries, ops);
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench firewall: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.stdout.write(`${JSON.stringify({ error: err instanceof Error ? err.message : String(err) })}\n`);
  process.exitCode = 1;
});
