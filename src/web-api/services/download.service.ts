/** Download tracking: one record per download a signed-in user reports. */
import { randomUUID } from 'node:crypto';
import type { WebStore } from '../../store/web/database.js';
import { insertDownload } from '../../store/web/repos/download.repo.js';
import type { Download, RecordDownloadBody } from '../schemas/download.schema.js';

export type { Download } from '../schemas/download.schema.js';

/** Records downloads for users (the count shows on their profile). */
export class DownloadService {
  constructor(private readonly store: WebStore) {}

  /** Stores one download of `input.version` for `input.platform` by `userId`. */
  async record(userId: string, input: RecordDownloadBody, now = new Date()): Promise<Download> {
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
