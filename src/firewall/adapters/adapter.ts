/**
 * The OS side of the firewall: what every backend (nftables, iptables + ipset, pf, Windows Firewall, none) can do.
 * Only the firewall service calls an adapter, so the desired state (store) and the applied state (OS) have one writer.
 * Entries are already validated and normalised (`rules.ts`); adapters never see user input.
 */

/** Backends selectable through VIGIL_FIREWALL (besides `auto`). */
export type BackendName = 'nftables' | 'iptables' | 'pf' | 'windows' | 'none';

/** One member of the block sets. */
export interface AdapterEntry {
  /** Normalised key from `parseAddress`: an address, or `address/prefix` for networks. */
  key: string;
  family: 4 | 6;
  /** True when `key` is a network prefix rather than a single address. */
  isPrefix: boolean;
  /** Remaining lifetime in whole seconds for kernel-side expiry, or null for permanent (or when the caller sweeps). */
  timeoutSeconds: number | null;
}

/** What the OS holds right now. */
export interface AppliedState {
  /** False when Vigil's table/sets/chains/jump rules are missing or not as Vigil builds them. */
  intact: boolean;
  /** Keys of the current members (same normalisation as AdapterEntry.key). */
  members: string[];
}

/** An OS firewall backend. Methods reject with CommandError (or Error) when the OS step fails. */
export interface FirewallAdapter {
  readonly name: BackendName;
  /** False only for `none`: blocks are recorded but not enforced. */
  readonly enforces: boolean;
  /** Largest kernel-side timeout in seconds the backend supports (0 when it has none; the service then sweeps). */
  readonly maxTimeoutSeconds: number;
  /** Atomically (where the backend allows) rebuilds Vigil's table/sets/chains holding exactly `entries`. */
  replaceAll(entries: readonly AdapterEntry[]): Promise<void>;
  /** Adds entries (an existing member gets the new timeout). Idempotent. */
  add(entries: readonly AdapterEntry[]): Promise<void>;
  /** Removes entries; members that are already gone are ignored. */
  remove(entries: readonly AdapterEntry[]): Promise<void>;
  /** Reads the applied state. */
  inspect(): Promise<AppliedState>;
  /** Removes everything Vigil created (table, sets, chains, jump rules). */
  teardown(): Promise<void>;
}
