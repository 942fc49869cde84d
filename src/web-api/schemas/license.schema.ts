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
