/**
 * Backend selection: VIGIL_FIREWALL picks one explicitly; `auto` takes nftables, then iptables + ipset, then none on
 * Linux (by which tools are installed, checked with `--version`, which needs no privilege), pf on macOS and
 * Windows Firewall on Windows. A backend that is installed but not permitted (no CAP_NET_ADMIN) is still chosen, so
 * block requests fail with a 503 that says why instead of silently recording only.
 */
import type { FirewallBackendChoice, FirewallConfig } from '../config/firewall.js';
import type { EventBus } from '../events.js';
import type { Db } from '../store/database.js';
import { execFileRunner, type CommandRunner } from './command-runner.js';
import type { BackendName, FirewallAdapter } from './adapters/adapter.js';
import { createIptablesAdapter } from './adapters/iptables.js';
import { createNftablesAdapter } from './adapters/nftables.js';
import { createNoneAdapter } from './adapters/none.js';
import { createPfAdapter } from './adapters/pf.js';
import { createWindowsAdapter } from './adapters/windows.js';
import { createFirewallService, type ManagedFirewallService } from './firewall.service.js';

async function works(run: CommandRunner, file: string, args: string[]): Promise<boolean> {
  try {
    await run(file, args);
    return true;
  } catch {
    return false;
  }
}

/** Resolves `auto` to a concrete backend name for this machine. */
export async function detectBackend(run: CommandRunner = execFileRunner, platform: NodeJS.Platform = process.platform): Promise<BackendName> {
  if (platform === 'darwin' || platform === 'freebsd' || platform === 'openbsd') return 'pf';
  if (platform === 'win32') return 'windows';
  if (await works(run, 'nft', ['--version'])) return 'nftables';
  if ((await works(run, 'iptables', ['--version'])) && (await works(run, 'ipset', ['--version']))) return 'iptables';
  return 'none';
}

/** The adapter for `name`, running its commands through `run`. */
export function createAdapter(name: BackendName, run: CommandRunner = execFileRunner): FirewallAdapter {
  switch (name) {
    case 'nftables':
      return createNftablesAdapter(run);
    case 'iptables':
      return createIptablesAdapter(run);
    case 'pf':
      return createPfAdapter(run);
    case 'windows':
      return createWindowsAdapter(run);
    case 'none':
      return createNoneAdapter();
  }
}

/** Picks and creates the adapter for a configured choice (`auto` is detected). */
export async function selectAdapter(choice: FirewallBackendChoice, run: CommandRunner = execFileRunner): Promise<FirewallAdapter> {
  return createAdapter(choice === 'auto' ? await detectBackend(run) : choice, run);
}

/** Everything {@link openFirewall} needs. */
export interface OpenFirewallOptions {
  db: Db;
  config: FirewallConfig;
  events?: EventBus;
  /** Command runner; defaults to execFile (tests and benchmarks pass a namespace runner). */
  run?: CommandRunner;
  log?: (message: string) => void;
}

/**
 * Composition helper for `cli/main.ts` and `vigil start`: selects the backend from the configuration and creates the
 * service (not started: call `start()` to reconcile the OS with the store and start the timers).
 */
export async function openFirewall(options: OpenFirewallOptions): Promise<ManagedFirewallService> {
  const adapter = await selectAdapter(options.config.backend, options.run ?? execFileRunner);
  return createFirewallService({
    db: options.db,
    adapter,
    config: options.config,
    ...(options.events ? { events: options.events } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
}
