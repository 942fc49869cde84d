/** `licenses`: a license key's record. The key itself is never stored, only its SHA-256. */
export interface LicenseTable {
  /** Random UUID; the `sub` of license certificates. */
  id: string;
  user_id: string;
  /** Hex SHA-256 of the canonical key (`VIGIL-XXXXX-...`); unique. */
  key_hash: string;
  plan: string;
  /** `active` or `revoked` (expiry is derived from `expires_at`). */
  status: string;
  /** ISO-8601 UTC timestamps. */
  issued_at: string;
  /** Null = never expires. */
  expires_at: string | null;
  revoked_at: string | null;
}
