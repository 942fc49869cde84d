/** `GET /api/pairing`: what the dashboard's pairing view shows (the same as `vigil pair --json`, without the warning). */
import { z } from 'zod';

export const pairingSchema = z.object({
  /** The desktop API's URL for the phone. */
  url: z.string(),
  /** The pairing token. */
  token: z.string(),
  /** The QR payload: `vigil://pair?url=...&token=...`. */
  link: z.string(),
});
