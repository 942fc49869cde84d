/** Request bodies of the license endpoints. */
import { z } from 'zod';

/** Plans a license can be issued for. */
export const PLANS = ['standard', 'pro', 'enterprise'] as const;

/**
 * `POST /api/license-key/validate`: any string is accepted here, whatever its length (the body limit bounds it); its
 * format is judged by the service (MALFORMED).
 */
export const validateLicenseBody = z.object({ key: z.string() });
export type ValidateLicenseBody = z.infer<typeof validateLicenseBody>;

/** `POST /api/protected/license-key`. */
export const createLicenseBody = z.object({ plan: z.enum(PLANS).default('standard') });
export type CreateLicenseBody = z.infer<typeof createLicenseBody>;

/** `DELETE /api/protected/license-key/:id`. */
export const licenseIdParams = z.object({ id: z.uuid() });
