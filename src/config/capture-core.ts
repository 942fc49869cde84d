/**
 * Settings of the capture core shared by every command that captures or replays (`vigil start`, `vigil replay`,
 * `vigil capture`), read from the environment. Invalid values throw a ConfigError naming the variable.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | VIGIL_CAPTURE_APP_LAYER | on | the application layer (DNS, TLS/QUIC, HTTP, SSH, DHCP, ARP parsing, Community ID); off: those fields are null |
 * | VIGIL_COMMUNITY_ID_SEED | 0 | Community ID seed (0..65535), as Zeek's and Suricata's `community_id_seed` |
 */
import { type Env, bool, int } from './env.js';

export interface CaptureCoreConfig {
  readonly appLayer: boolean;
  readonly communityIdSeed: number;
}

export function loadCaptureCoreConfig(env: Env = process.env): CaptureCoreConfig {
  return Object.freeze({
    appLayer: bool(env, 'VIGIL_CAPTURE_APP_LAYER', true),
    communityIdSeed: int(env, 'VIGIL_COMMUNITY_ID_SEED', 0, 0, 65535),
  });
}
