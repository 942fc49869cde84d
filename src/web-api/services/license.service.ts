/**
 * License keys: creation (key shown once, hash stored, capped per user) and public validation with a signed
 * certificate for valid licenses.
 */
import { randomUUID } from 'node:crypto';
import type { WebConfig } from '../../config/web.js';
import type { Plan } from '../../domain/license.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../errors.js';
import type { WebStore } from '../../store/web/database.js';
import {
  countActiveLicenses,
  findLicenseByKeyHash,
  findLicenseById,
  insertLicense,
  type LicenseRow,
  updateLicense,
} from '../../store/web/repos/license.repo.js';
import { lockUserForUpdate } from '../../store/web/repos/user.repo.js';
import type { License, LicenseCreated, ValidationResult } from '../schemas/license.schema.js';
import type { CertificateSigner } from './certificate.service.js';
import { generateLicenseKey, hashLicenseKey, normalizeLicenseKey } from './license-key.js';

export type { License, ValidationCode, ValidationResult } from '../schemas/license.schema.js';

/** Maps a row to the API shape, deriving `expired` at `now`. */
export function toLicense(row: LicenseRow, now: Date): License {
  const expired = row.expires_at !== null && row.expires_at <= now.toISOString();
  const status = row.status === 'revoked' ? 'revoked' : expired ? 'expired' : 'active';
  return { id: row.id, plan: row.plan as Plan, status, issuedAt: row.issued_at, expiresAt: row.expires_at, revokedAt: row.revoked_at };
}

/** Policy knobs of {@link LicenseService}. */
export interface LicensePolicy {
  /** Active keys a user may hold. */
  maxActiveKeysPerUser: number;
  /** Validity of a new license in days; 0 = never expires. */
  licenseDays: number;
  /** Plans users may create for themselves; the first is the default. */
  selfServicePlans: readonly Plan[];
  /** Subjects (`sub`) who may create licenses of any plan through the API. */
  adminSubjects: readonly string[];
}

/** The policy `config` sets (the Web API and `vigil web license` share it). */
export function licensePolicy(config: WebConfig): LicensePolicy {
  const { maxActiveKeysPerUser, licenseDays, selfServicePlans, adminSubjects } = config;
  return { maxActiveKeysPerUser, licenseDays, selfServicePlans, adminSubjects };
}

/** License creation, revocation and validation over the store, signing certificates with `signer`. */
export class LicenseService {
  constructor(
    private readonly store: WebStore,
    private readonly signer: CertificateSigner,
    private readonly policy: LicensePolicy,
  ) {}

  /**
   * A license the signed-in `user` asked for through the API: `plan` (default: the first self-service plan) must be a
   * self-service plan unless the user is an administrator; otherwise 403 `plan_not_self_service`. Then as
   * {@link create}.
   */
  async request(user: { id: string; subject: string }, plan: Plan | undefined, now = new Date()): Promise<LicenseCreated> {
    const { selfServicePlans, adminSubjects } = this.policy;
    const chosen = plan ?? selfServicePlans[0];
    if (chosen === undefined || (!selfServicePlans.includes(chosen) && !adminSubjects.includes(user.subject))) {
      const offered = selfServicePlans.length === 0 ? 'no plan is self-service here' : `self-service plans: ${selfServicePlans.join(', ')}`;
      throw new ForbiddenError(
        chosen === undefined
          ? `Licenses are issued by an administrator on this server (${offered}).`
          : `The ${chosen} plan is issued by an administrator (${offered}).`,
        'plan_not_self_service',
        { plan: chosen ?? null, selfServicePlans: [...selfServicePlans] },
      );
    }
    return this.create(user.id, chosen, now);
  }

  /**
   * Creates a license of any `plan` for `userId` (administrators: `vigil web license create`, or {@link request} once
   * it has checked the plan). Returns the plaintext key (the only time it exists outside the caller) and the
   * license. Throws 409 `license_limit_reached` when the user already holds the maximum of active keys.
   */
  async create(userId: string, plan: Plan, now = new Date()): Promise<LicenseCreated> {
    const key = generateLicenseKey();
    const nowIso = now.toISOString();
    const row: LicenseRow = {
      id: randomUUID(),
      user_id: userId,
      key_hash: hashLicenseKey(key),
      plan,
      status: 'active',
      issued_at: nowIso,
      expires_at: this.policy.licenseDays > 0 ? new Date(now.getTime() + this.policy.licenseDays * 86_400_000).toISOString() : null,
      revoked_at: null,
    };
    await this.store.db.transaction().execute(async (trx) => {
      // Serialise key creation per user so concurrent requests cannot pass the cap together.
      await lockUserForUpdate(trx, this.store.kind, userId);
      const active = await countActiveLicenses(trx, userId, nowIso);
      if (active >= this.policy.maxActiveKeysPerUser) {
        throw new ConflictError(`You already hold ${active} active license keys, the maximum per user.`, 'license_limit_reached', {
          limit: this.policy.maxActiveKeysPerUser,
        });
      }
      await insertLicense(trx, row);
    });
    return { key, license: toLicense(row, now) };
  }

  /**
   * Revokes one of the user's own licenses (idempotent); it then validates as REVOKED and no longer counts against the
   * cap. Another user's license is reported as not found, so ids cannot be probed.
   */
  async revoke(userId: string, licenseId: string, now = new Date()): Promise<License> {
    const row = await findLicenseById(this.store.db, licenseId);
    if (row === undefined || row.user_id !== userId) throw new NotFoundError(`License ${licenseId} does not exist.`, 'license_not_found');
    if (row.status === 'revoked') return toLicense(row, now);
    const revoked = { ...row, status: 'revoked', revoked_at: now.toISOString() };
    await updateLicense(this.store.db, row.id, { status: revoked.status, revoked_at: revoked.revoked_at });
    return toLicense(revoked, now);
  }

  /** Checks a key: MALFORMED without a lookup when the format or check symbols fail; VALID answers carry a certificate. */
  async validate(input: string, now = new Date()): Promise<ValidationResult> {
    const canonical = normalizeLicenseKey(input);
    if (canonical === null) return { valid: false, code: 'MALFORMED', license: null };
    const keyHash = hashLicenseKey(canonical);
    const row = await findLicenseByKeyHash(this.store.db, keyHash);
    if (row === undefined) return { valid: false, code: 'NOT_FOUND', license: null };
    const license = toLicense(row, now);
    if (license.status === 'revoked') return { valid: false, code: 'REVOKED', license };
    if (license.status === 'expired') return { valid: false, code: 'EXPIRED', license };
    const certificate = await this.signer.sign({ id: license.id, plan: license.plan, expiresAt: license.expiresAt }, now);
    return { valid: true, code: 'VALID', license, certificate: certificate.token, certificateExpiresAt: certificate.expiresAt };
  }
}
