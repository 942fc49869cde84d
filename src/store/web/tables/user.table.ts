/** `users`: one row per (issuer, subject) pair seen in a verified access token; created on first sight. */
export interface UserTable {
  /** Random UUID. */
  id: string;
  /** `iss` of the token that introduced the user. */
  issuer: string;
  /** `sub` of that token (unique per issuer). */
  subject: string;
  email: string | null;
  name: string | null;
  /** ISO-8601 UTC timestamp. */
  created_at: string;
  /** ISO-8601 UTC timestamp of the last claims refresh. */
  updated_at: string;
}
