/** What `app.ts` hands to each route file's `register(router, deps)`. */
import type { Middleware } from 'koa';
import type { ErrorLogStats } from '../http/error-log.js';
import type { CertificateSigner } from './services/certificate.service.js';
import type { DownloadService } from './services/download.service.js';
import type { LicenseService } from './services/license.service.js';
import type { UserService } from './services/user.service.js';
import type { WebStore } from '../store/web/database.js';

/** Services and prepared middleware shared by the route files. */
export interface RouteDeps {
  store: WebStore;
  licenses: LicenseService;
  users: UserService;
  downloads: DownloadService;
  signer: CertificateSigner;
  /**
   * The per-client-IP limit of failed authentications, Bearer authentication, the per-user rate limit, then the JSON
   * body reader: mount on every `/api/protected/*` route.
   */
  protect: Middleware[];
  /** Per-client-IP rate limit of the public validation endpoint, then the JSON body reader. */
  validateLimit: Middleware;
  /** Per-client-IP rate limit of the other public pages (landing page, JWKS). */
  publicLimit: Middleware;
  /** Version reported by `/health`. */
  version: string;
  /** Rendered landing page. */
  landingHtml: string;
  /** Directory served at `/downloads/<file>`. */
  downloadsDir: string;
  /** Counters of the error log (client-caused failures, logged and suppressed reports), for `/health`. */
  errorStats: () => ErrorLogStats;
  /** The OpenAPI document served at `/api/openapi.json`. */
  openapi: Record<string, unknown>;
}
