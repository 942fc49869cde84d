/** Request body of `POST /api/protected/download`. */
import { z } from 'zod';

/** Platforms Vigil is released for. */
export const PLATFORMS = ['linux', 'windows', 'macos'] as const;
/** CPU architectures of the release builds. */
export const ARCHES = ['x64', 'arm64'] as const;

/** Longest release version accepted (a semantic version with a pre-release tag fits many times over). */
export const VERSION_MAX_LENGTH = 64;

export const recordDownloadBody = z.object({
  platform: z.enum(PLATFORMS),
  version: z
    .string()
    .max(VERSION_MAX_LENGTH)
    .regex(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/, 'expected a semantic version such as 1.2.3'),
  arch: z.enum(ARCHES).optional(),
});
export type RecordDownloadBody = z.infer<typeof recordDownloadBody>;

/** 201 of `POST /api/protected/download`: the recorded download. */
export const downloadSchema = z.object({
  id: z.uuid(),
  userId: z.uuid(),
  platform: z.enum(PLATFORMS),
  version: z.string(),
  arch: z.enum(ARCHES).nullable(),
  createdAt: z.string().meta({ format: 'date-time' }),
});
export type Download = z.infer<typeof downloadSchema>;
