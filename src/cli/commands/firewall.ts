/**
 * `vigil firewall`: inspect and maintain the OS firewall blocks from the command line. Uses the same store
 * (VIGIL_DATA_DIR) and backend (VIGIL_FIREWALL) as `vigil start`, so blocks made here are kept by the running sensor
 * (its periodic re-assert reloads the store).
 *
 *   vigil firewall status [--json]              backend, desired (store) vs applied (OS) counts
 *   vigil firewall list [--json]                blocked addresses
 *   vigil firewall block IP [--reason TEXT] [--duration SECONDS]
 *   vigil firewall unblock IP
 *   vigil firewall reconcile                    rebuild the OS state from the store now
 *   vigil firewall audit [--limit N] [--json]   who blocked/unblocked what, when, why
 */
import { parseArgs } from 'node:util';
import { loadDesktopConfig } from '../../config/desktop.js';
import { loadFirewallConfig } from '../../config/firewall.js';
import { ValidationError } from '../../errors.js';
import { openFirewall } from '../../firewall/backend.js';
import type { ManagedFirewallService } from '../../firewall/firewall.service.js';
import { closeStore, openStore } from '../../store/database.js';
import { terminalJson, terminalText as t } from '../terminal-text.js';

const USAGE = `usage: vigil firewall <status|list|block IP|unblock IP|reconcile|audit> [options]
  status [--json]                          backend, desired (store) vs applied (OS) counts
  list [--json]                            blocked addresses
  block IP [--reason TEXT] [--duration S]  block an address or prefix (optionally for S seconds)
  unblock IP                               remove a block
  reconcile                                rebuild Vigil's firewall table from the store now
  audit [--limit N] [--json]               recent blocks, unblocks, expiries and refusals
Environment: VIGIL_DATA_DIR (store), VIGIL_FIREWALL (auto|nftables|iptables|pf|windows|none), VIGIL_FIREWALL_ALLOWLIST.`;

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** `value`, or `fallback` when null; stored text, so printed through {@link t}. */
function field(value: string | null, fallback = ''): string {
  return value === null ? fallback : t(value);
}

/** Runs `vigil firewall ...`; returns the exit code. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      reason: { type: 'string' },
      duration: { type: 'string' },
      limit: { type: 'string', default: '20' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [sub = 'status', target] = positionals;
  if (values.help || !['status', 'list', 'block', 'unblock', 'reconcile', 'audit'].includes(sub)) {
    (values.help ? process.stdout : process.stderr).write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  if ((sub === 'block' || sub === 'unblock') && !target) {
    process.stderr.write(`vigil firewall ${sub}: missing IP\n${USAGE}\n`);
    return 2;
  }

  const desktop = loadDesktopConfig();
  const config = loadFirewallConfig();
  const db = await openStore(desktop.databaseFile);
  let service: ManagedFirewallService | undefined;
  try {
    service = await openFirewall({ db, config, log: (m) => process.stderr.write(`${m}\n`) });
    switch (sub) {
      case 'status': {
        const s = await service.status();
        if (values.json) out(terminalJson(s));
        else {
          out(`backend:  ${t(s.backend)}${s.available ? '' : ' (NOT enforcing)'}`);
          out(`desired:  ${s.desired} blocked in the store (${t(desktop.databaseFile)})`);
          out(
            `applied:  ${s.applied === null ? 'n/a' : `${s.applied} in the OS firewall`}${s.intact === false ? ' (Vigil rules missing or altered; run `vigil firewall reconcile`)' : ''}`,
          );
          if (s.error) out(`error:    ${t(s.error)}`);
        }
        return s.error ? 1 : 0;
      }
      case 'list': {
        const { blocked, total } = await service.list();
        if (values.json) out(terminalJson({ blocked, total }));
        else {
          for (const b of blocked)
            out(`${t(b.ip).padEnd(40)} ${t(b.blockedAt)}  ${b.expiresAt ? `until ${t(b.expiresAt)}` : 'permanent'}  ${t(b.source)}  ${field(b.reason)}`);
          out(`${total} blocked`);
        }
        return 0;
      }
      case 'block': {
        let durationSeconds: number | null = null;
        if (values.duration !== undefined) {
          if (!/^\d+$/.test(values.duration))
            throw new ValidationError('--duration must be a whole number of seconds', [{ path: 'durationSeconds', message: 'a whole number of seconds' }]);
          durationSeconds = Number(values.duration);
        }
        await service.start();
        const entry = await service.block({ ip: target, reason: values.reason ?? null, durationSeconds, actor: 'cli' });
        out(
          values.json
            ? terminalJson(entry)
            : `blocked ${t(entry.ip)}${entry.expiresAt ? ` until ${t(entry.expiresAt)}` : ''}${entry.enforced === false ? ' (recorded only: no firewall backend)' : ''}`,
        );
        return 0;
      }
      case 'unblock': {
        await service.start();
        const entry = await service.unblock(target, 'cli');
        out(values.json ? terminalJson(entry) : `unblocked ${t(entry.ip)}`);
        return 0;
      }
      case 'reconcile': {
        const r = await service.reconcile({ force: true });
        const s = await service.status();
        out(
          values.json
            ? terminalJson({ ...r, status: s })
            : `reconciled: ${r.missing} missing re-applied, ${r.stray} stray removed; ${s.applied ?? 'n/a'} of ${s.desired} applied`,
        );
        return s.error ? 1 : 0;
      }
      case 'audit': {
        const rows = await service.audit(Number.parseInt(values.limit, 10) || 20);
        if (values.json) out(terminalJson(rows));
        else
          for (const a of rows)
            out(
              `${t(a.at)}  ${t(a.action).padEnd(9)} ${field(a.ip, '-').padEnd(40)} ${t(a.outcome).padEnd(7)} ${t(a.actor)}${a.client_ip ? `@${t(a.client_ip)}` : ''}  ${field(a.reason)}${a.detail ? `  (${t(a.detail)})` : ''}`,
            );
        return 0;
      }
    }
    return 2;
  } finally {
    await service?.stop();
    await closeStore(db);
  }
}
