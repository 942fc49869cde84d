/**
 * Firewall configuration, read once from the environment into a frozen object (the only place the firewall's
 * variables are read).
 */
import { ConfigError } from '../errors.js';
import { parseAddress } from '../net/cidr.js';
import { bool, int, list, oneOf, type Env } from './env.js';

/** Backend choices for VIGIL_FIREWALL. */
export const FIREWALL_BACKENDS = ['auto', 'nftables', 'iptables', 'pf', 'windows', 'none'] as const;
export type FirewallBackendChoice = (typeof FIREWALL_BACKENDS)[number];

export interface FirewallConfig {
  /** VIGIL_FIREWALL: `auto` (default: nftables, then iptables + ipset, then none on Linux; pf on macOS; windows on Windows). */
  readonly backend: FirewallBackendChoice;
  /**
   * VIGIL_FIREWALL_ALLOWLIST: comma-separated addresses or prefixes that can never be blocked (in addition to
   * loopback, this machine, its gateways and DNS servers, and the requesting client). Stored normalised.
   */
  readonly allowlist: readonly string[];
  /** VIGIL_FIREWALL_UNBLOCK_ON_STOP: remove Vigil's table/sets when Vigil stops (default false: blocks stay; the store re-applies them at the next start anyway). */
  readonly unblockOnStop: boolean;
  /** VIGIL_FIREWALL_SWEEP_INTERVAL_MS: how often expired blocks leave the store (and the OS, for backends without kernel timeouts). Default 5000. */
  readonly sweepIntervalMs: number;
  /** VIGIL_FIREWALL_REASSERT_INTERVAL_MS: how often the applied state is compared with the store and repaired; 0 disables. Default 60000. */
  readonly reassertIntervalMs: number;
  /**
   * VIGIL_FIREWALL_WATCH_INTERVAL_MS: how often the store is checked for blocks written by another process (e.g.
   * `vigil firewall block` while `vigil start` runs), which are then applied, listed and announced; 0 disables.
   * Default 1000. The check reads one SQLite pragma.
   */
  readonly watchIntervalMs: number;
}

/** Reads the firewall configuration; throws ConfigError naming the bad variable. */
export function loadFirewallConfig(env: Env = process.env): FirewallConfig {
  const allowlist = list(env, 'VIGIL_FIREWALL_ALLOWLIST', []).map((entry) => {
    try {
      return parseAddress(entry).key;
    } catch {
      throw new ConfigError('VIGIL_FIREWALL_ALLOWLIST', `"${entry}" is not an IP address or prefix`);
    }
  });
  return Object.freeze({
    backend: oneOf(env, 'VIGIL_FIREWALL', FIREWALL_BACKENDS, 'auto'),
    allowlist: Object.freeze(allowlist),
    unblockOnStop: bool(env, 'VIGIL_FIREWALL_UNBLOCK_ON_STOP', false),
    sweepIntervalMs: int(env, 'VIGIL_FIREWALL_SWEEP_INTERVAL_MS', 5000, 100, 3_600_000),
    reassertIntervalMs: int(env, 'VIGIL_FIREWALL_REASSERT_INTERVAL_MS', 60_000, 0, 86_400_000),
    watchIntervalMs: int(env, 'VIGIL_FIREWALL_WATCH_INTERVAL_MS', 1000, 0, 3_600_000),
  });
}
