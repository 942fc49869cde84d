/** Download tracking: one record per download a signed-in user reports. */
import { randomUUID } from 'node:crypto';
import type { WebStore } from '../../store/web/database.js';
import { insertDownload } from '../../store/web/repos/download.repo.js';

/** A recorded download. */
export interface Download {
  id: string;
  userId: string;
  platform: string;
  version: string;
  arch: string | null;
  createdAt: string;
}

/** Records downloads for users (the count shows on their profile). */
export class DownloadService {
  constructor(private readonly store: WebStore) {}

  /** Stores one download of `input.version` for `input.platform` by `userId`. */
  async record(userId: string, input: { platform: string; version: string; arch?: string | undefined }, now = new Date()): Promise<Download> {
    const row = {
      id: randomUUID(),
      user_id: userId,
      platform: input.platform,
      version: input.version,
      arch: input.arch ?? null,
      created_at: now.toISOString(),
    };
    await insertDownload(this.store.db, row);
    return { id: row.id, userId, platform: row.platform, version: row.version, arch: row.arch, createdAt: row.created_at };
  }
}
