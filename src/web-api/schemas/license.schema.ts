/** Request bodies of the license endpoints. */
import { z } from 'zod';
import { planSchema } from '../../domain/license.js';
import { MAX_KEY_INPUT_LENGTH } from '../services/license-key.js';

/**
 * `POST /api/license-key/validate`: any string up to {@link MAX_KEY_INPUT_LENGTH} characters is accepted here; its
 * format is judged by the service (MALFORMED). Longer strings cannot be a key, whatever their separators: 400.
 */
export const validateLicenseBody = z.object({ key: z.string().max(MAX_KEY_INPUT_LENGTH) });
export type ValidateLicenseBody = z.infer<typeof validateLicenseBody>;

/**
 * `POST /api/protected/license-key`. Without `plan`, the first self-service plan (`VIGIL_WEB_SELF_SERVICE_PLANS`) is
 * issued; other plans need an administrator.
 */
export const createLicenseBody = z.object({ plan: planSchema.optional() });
export type CreateLicenseBody = z.infer<typeof createLicenseBody>;

/** `DELETE /api/protected/license-key/:id`. */
export const licenseIdParams = z.object({ id: z.uuid() });

/** ISO 8601 timestamp text. */
export const isoTime = z.string().meta({ format: 'date-time' });

/** A license as the API shows it (never with its key). */
export const licenseSchema = z.object({
  id: z.uuid(),
  plan: planSchema,
  /** `expired` is derived from `expiresAt`. */
  status: z.enum(['active', 'expired', 'revoked']),
  issuedAt: isoTime,
  /** Null = never expires. */
  expiresAt: isoTime.nullable(),
  revokedAt: isoTime.nullable(),
});
export type License = z.infer<typeof licenseSchema>;

/** Outcome codes of `POST /api/license-key/validate`. */
export const VALIDATION_CODES = ['VALID', 'NOT_FOUND', 'EXPIRED', 'REVOKED', 'MALFORMED'] as const;
export type ValidationCode = (typeof VALIDATION_CODES)[number];

/** 200 of `POST /api/license-key/validate`. */
export const validationResultSchema = z.object({
  valid: z.boolean(),
  code: z.enum(VALIDATION_CODES),
  license: licenseSchema.nullable(),
  /** Compact EdDSA JWS over the license (only when VALID); verify with `/.well-known/jwks.json`. */
  certificate: z.string().optional(),
  certificateExpiresAt: isoTime.optional(),
});
export type ValidationResult = z.infer<typeof validationResultSchema>;

/** 201 of `POST /api/protected/license-key`: the key is shown this once. */
export const licenseCreatedSchema = z.object({ key: z.string().regex(/^VIGIL(-[0-9A-Z]{5}){5}$/), license: licenseSchema });
export type LicenseCreated = z.infer<typeof licenseCreatedSchema>;

/** 200 of `DELETE /api/protected/license-key/:id`. */
export const licenseRevokedSchema = z.object({ license: licenseSchema });
