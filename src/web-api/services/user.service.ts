/**
 * Users are created on first sight of a verified token and their email/name kept in step with its claims. Claims are
 * written by whoever controls the account at the identity provider, so they are bounded before they are stored (see
 * {@link boundedClaims}).
 */
import { randomUUID } from 'node:crypto';
import { BearerTokenError } from '../auth/errors.js';
import type { Principal } from '../auth/jwt-verifier.js';
import type { WebStore } from '../../store/web/database.js';
import { countDownloadsByUser } from '../../store/web/repos/download.repo.js';
import { listLicensesByUser } from '../../store/web/repos/license.repo.js';
import { findUserByIdentity, insertUserIfAbsent, updateUserProfile, type UserRow } from '../../store/web/repos/user.repo.js';
import type { User, UserProfile } from '../schemas/user.schema.js';
import { toLicense } from './license.service.js';

export type { User, UserProfile } from '../schemas/user.schema.js';

/** Longest `sub` accepted: OpenID Connect Core 1.0 §2 caps it at 255 ASCII characters. */
export const SUBJECT_MAX_LENGTH = 255;
/** Longest email kept: the longest forward path RFC 5321 allows (§4.5.3.1.3) less its angle brackets. */
export const EMAIL_MAX_LENGTH = 254;
/** Longest display name kept, in Unicode code points. */
export const NAME_MAX_LENGTH = 200;

/**
 * The principal with its client-written claims bounded: a `sub` longer than {@link SUBJECT_MAX_LENGTH} is refused
 * (401 `invalid_token`: it names the account, so a shortened one could name someone else); an email longer than
 * {@link EMAIL_MAX_LENGTH} is dropped (null: a shortened address would be another address); a name longer than
 * {@link NAME_MAX_LENGTH} code points is cut to that many (it is only shown).
 */
export function boundedClaims(principal: Principal): Principal {
  if (principal.subject.length > SUBJECT_MAX_LENGTH) {
    throw new BearerTokenError('invalid_token', `The access token's subject is longer than ${SUBJECT_MAX_LENGTH} characters.`);
  }
  const email = principal.email !== null && principal.email.length > EMAIL_MAX_LENGTH ? null : principal.email;
  let name = principal.name;
  if (name !== null && name.length > NAME_MAX_LENGTH) {
    const points = Array.from(name);
    if (points.length > NAME_MAX_LENGTH) name = points.slice(0, NAME_MAX_LENGTH).join('');
  }
  return { ...principal, email, name };
}

function toUser(row: UserRow): User {
  return { id: row.id, issuer: row.issuer, subject: row.subject, email: row.email, name: row.name, createdAt: row.created_at };
}

/** Users keyed by (issuer, subject) of their access tokens. */
export class UserService {
  constructor(private readonly store: WebStore) {}

  /** The stored user for `principal`, created if new; profile claims are bounded and refreshed when they changed. */
  async ensureUser(claims: Principal, now = new Date()): Promise<User> {
    const principal = boundedClaims(claims);
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

  /**
   * The stored user with this identity, created without profile claims if new (an administrator issuing a license to
   * someone who has not signed in yet); an existing user's claims are left as they are.
   */
  async ensureIdentity(issuer: string, subject: string, now = new Date()): Promise<User> {
    const existing = await findUserByIdentity(this.store.db, issuer, subject);
    if (existing !== undefined) return toUser(existing);
    const { subject: bounded } = boundedClaims({ issuer, subject, email: null, name: null });
    const iso = now.toISOString();
    return toUser(
      await insertUserIfAbsent(this.store.db, { id: randomUUID(), issuer, subject: bounded, email: null, name: null, created_at: iso, updated_at: iso }),
    );
  }

  /** The profile of `principal` (creating the user on first sight). */
  async profile(principal: Principal, now = new Date()): Promise<UserProfile> {
    const user = await this.ensureUser(principal, now);
    const [rows, downloadCount] = await Promise.all([listLicensesByUser(this.store.db, user.id), countDownloadsByUser(this.store.db, user.id)]);
    return { user, licenses: rows.map((r) => toLicense(r, now)), downloadCount };
  }
}
