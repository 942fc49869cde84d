/** Users are created on first sight of a verified token and their email/name kept in step with its claims. */
import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/jwt-verifier.js';
import type { WebStore } from '../../store/web/database.js';
import { countDownloadsByUser } from '../../store/web/repos/download.repo.js';
import { listLicensesByUser } from '../../store/web/repos/license.repo.js';
import { findUserByIdentity, insertUserIfAbsent, updateUserProfile, type UserRow } from '../../store/web/repos/user.repo.js';
import { type License, toLicense } from './license.service.js';

/** A user as the API shows it. */
export interface User {
  id: string;
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
  createdAt: string;
}

/** `GET /api/protected/user`: the user, their licenses (never keys) and their download count. */
export interface UserProfile {
  user: User;
  licenses: License[];
  downloadCount: number;
}

function toUser(row: UserRow): User {
  return { id: row.id, issuer: row.issuer, subject: row.subject, email: row.email, name: row.name, createdAt: row.created_at };
}

/** Users keyed by (issuer, subject) of their access tokens. */
export class UserService {
  constructor(private readonly store: WebStore) {}

  /** The stored user for `principal`, created if new; profile claims are refreshed when they changed. */
  async ensureUser(principal: Principal, now = new Date()): Promise<User> {
    const { db } = this.store;
    const existing = await findUserByIdentity(db, principal.issuer, principal.subject);
    if (existing === undefined) {
      const iso = now.toISOString();
      const row = await insertUserIfAbsent(db, {
        id: randomUUID(),
        issuer: principal.issuer,
        subject: principal.subject,
        email: principal.email,
        name: principal.name,
        created_at: iso,
        updated_at: iso,
      });
      return toUser(row);
    }
    if (existing.email !== principal.email || existing.name !== principal.name) {
      await updateUserProfile(db, existing.id, principal.email, principal.name, now.toISOString());
      return toUser({ ...existing, email: principal.email, name: principal.name });
    }
    return toUser(existing);
  }

  /** The profile of `principal` (creating the user on first sight). */
  async profile(principal: Principal, now = new Date()): Promise<UserProfile> {
    const user = await this.ensureUser(principal, now);
    const [rows, downloadCount] = await Promise.all([listLicensesByUser(this.store.db, user.id), countDownloadsByUser(this.store.db, user.id)]);
    return { user, licenses: rows.map((r) => toLicense(r, now)), downloadCount };
  }
}
