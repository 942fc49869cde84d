/** `downloads`: one row per download a signed-in user reported. */
export interface DownloadTable {
  /** Random UUID. */
  id: string;
  user_id: string;
  platform: string;
  version: string;
  arch: string | null;
  /** ISO-8601 UTC timestamp. */
  created_at: string;
}
