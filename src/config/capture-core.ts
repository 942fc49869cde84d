/**
 * Settings of the capture core shared by every command that captures or replays (`vigil start`, `vigil replay`,
 * `vigil capture`), read from the environment. Invalid values throw a ConfigError naming the variable.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | VIGIL_CAPTURE_APP_LAYER | on | the application layer (DNS, TLS/QUIC, HTTP, SSH, DHCP, ARP parsing, Community ID); off: those fields are null |
 * | VIGIL_COMMUNITY_ID_SEED | 0 | Community ID seed (0..65535), as Zeek's and Suricata's `community_id_seed` |
 * | VIGIL_CAPTURE_PROCESS | on | live capture on Linux: the program owning each TCP/UDP flow's local socket (`process`); off: null (replays always carry none) |
 * | VIGIL_CAPTURE_PROCESS_CPU_PERCENT | 1 | CPU budget of the process resolver, percent of one core (0.1..100); past it, lookups wait and share rounds |
 */
import { type Env, bool, int, num } from './env.js';

export interface CaptureCoreConfig {
  readonly appLayer: boolean;
  readonly communityIdSeed: number;
  /** Attribute live flows to processes (`VIGIL_CAPTURE_PROCESS`; Linux only, see docs/process.md). */
  readonly processes: boolean;
  /** The process resolver's CPU budget, percent of one core (`VIGIL_CAPTURE_PROCESS_CPU_PERCENT`). */
  readonly processCpuPercent: number;
}

export function loadCaptureCoreConfig(env: Env = process.env): CaptureCoreConfig {
  return Object.freeze({
    appLayer: bool(env, 'VIGIL_CAPTURE_APP_LAYER', true),
    communityIdSeed: int(env, 'VIGIL_COMMUNITY_ID_SEED', 0, 0, 65535),
    processes: bool(env, 'VIGIL_CAPTURE_PROCESS', true),
    processCpuPercent: num(env, 'VIGIL_CAPTURE_PROCESS_CPU_PERCENT', 1, 0.1, 100),
  });
}
