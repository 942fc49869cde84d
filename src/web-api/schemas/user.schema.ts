/** Response body of `GET /api/protected/user`. */
import { z } from 'zod';
import { isoTime, licenseSchema } from './license.schema.js';

/** A user as the API shows it: the identity of their access tokens and the (bounded) profile claims. */
export const userSchema = z.object({
  id: z.uuid(),
  issuer: z.string(),
  subject: z.string(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  createdAt: isoTime,
});
export type User = z.infer<typeof userSchema>;

/** The user, their licenses (never keys) and their download count. */
export const userProfileSchema = z.object({ user: userSchema, licenses: z.array(licenseSchema), downloadCount: z.number().int().min(0) });
export type UserProfile = z.infer<typeof userProfileSchema>;
