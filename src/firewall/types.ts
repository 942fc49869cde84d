/**
 * Contract between the firewall service (src/firewall: blocks enforced in the OS firewall) and its callers (desktop
 * API routes, auto-block in detection, `vigil firewall status`), so callers depend on these types, not on the service.
 */
import type { FirewallBackendChoice } from '../config/firewall.js';

/** Who asked: loopback, a paired client (token), detection's auto-block, or the CLI. */
export type FirewallActor = 'loopback' | 'token' | 'autoblock' | 'cli' | 'system';

export interface BlockRequest {
  /** IPv4/IPv6 address (validated and normalised by the service; IPv4-mapped IPv6 becomes IPv4). */
  ip: string;
  reason?: string | null;
  /** Optional expiry; the block disappears after this many seconds. */
  durationSeconds?: number | null;
  actor: FirewallActor;
  /** Address of the HTTP client that sent the request (never blockable), when there is one. */
  clientIp?: string | null;
}

export interface BlockedEntry {
  ip: string;
  reason: string | null;
  /** ISO 8601. */
  blockedAt: string;
  /** ISO 8601 or null for permanent blocks. */
  expiresAt: string | null;
  /** Who created it (FirewallActor). */
  source: string;
  /** False when the backend only records (`none`): the address is listed but NOT blocked by the OS. */
  enforced?: boolean;
}

export interface FirewallStatus {
  /** 'nftables' | 'iptables' | 'pf' | 'windows' | 'none'. */
  backend: string;
  /** True when blocks are enforced by the OS (false for 'none' or when the backend failed). */
  available: boolean;
  /** Entries in the store (desired state) and in the OS (applied state). */
  desired: number;
  applied: number | null;
  error?: string;
  /** False when Vigil's table/sets/chains were found missing or altered at the last check (they are then rebuilt). */
  intact?: boolean;
  /**
   * What VIGIL_FIREWALL asked for (`auto` or a backend name), when the service knows it: `backend: 'none'` with
   * `configured: 'none'` is record-only by choice; with `auto` it means no firewall tool was found.
   */
  configured?: FirewallBackendChoice;
}

/**
 * The firewall service. Throws AppErrors: ValidationError (400, bad address), ConflictError (409, protected address,
 * codes like `protected_loopback`, `protected_self`, `protected_gateway`, `protected_dns`, `protected_client`,
 * `protected_allowlist`), NotFoundError (404, unblock of an address not blocked), ServiceUnavailableError (503, OS
 * step failed; nothing stored).
 */
export interface FirewallService {
  block(req: BlockRequest): Promise<BlockedEntry>;
  unblock(ip: string, actor: FirewallActor, clientIp?: string | null): Promise<BlockedEntry>;
  list(): Promise<{ blocked: BlockedEntry[]; total: number }>;
  isBlocked(ip: string): boolean;
  status(): Promise<FirewallStatus>;
  /** Reconcile OS state with the store (creates table/sets, re-applies, removes strays); starts the expiry sweeper. */
  start(): Promise<void>;
  /** Stops the sweeper; leaves blocks in place unless configured otherwise. */
  stop(): Promise<void>;
}
