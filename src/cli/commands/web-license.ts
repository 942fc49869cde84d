/**
 * `vigil web license create --plan PLAN --subject SUB [--issuer ISS] [--json]`: an administrator issues a license of
 * any plan (self-service through the API is limited to VIGIL_WEB_SELF_SERVICE_PLANS) to the user with that identity,
 * creating the user if they have not signed in yet. Same database and policy (key cap, validity) as `vigil web`; the
 * key is printed once and only its hash is stored.
 */
import { parseArgs } from 'node:util';
import { loadWebConfig } from '../../config/web.js';
import { PLANS, planSchema } from '../../domain/license.js';
import { ServiceUnavailableError, ValidationError } from '../../errors.js';
import type { CertificateSigner } from '../../web-api/services/certificate.service.js';
import { LicenseService, licensePolicy } from '../../web-api/services/license.service.js';
import { UserService } from '../../web-api/services/user.service.js';
import { openWebStore, type WebStore } from '../../store/web/database.js';

const USAGE = `usage: vigil web license create --plan PLAN --subject SUB [--issuer URL] [--json]
  Issues a license of PLAN (${PLANS.join(', ')}) to the user whose access tokens carry sub=SUB from the issuer URL
  (default VIGIL_JWT_ISSUER), creating the user if new. Prints the key once.
Environment: the VIGIL_WEB_* variables of \`vigil web\` (database, VIGIL_WEB_MAX_ACTIVE_KEYS, VIGIL_WEB_LICENSE_DAYS).`;

/** Creating licenses never signs a certificate; validation (the only signer use) is the server's. */
const NO_SIGNER: CertificateSigner = {
  jwks: { keys: [] },
  sign: () => Promise.reject(new TypeError('vigil web license does not sign certificates')),
};

/** Runs `vigil web license ...`; returns the exit code. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      plan: { type: 'string' },
      subject: { type: 'string' },
      issuer: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const config = loadWebConfig();
  const issuer = values.issuer ?? config.jwt?.issuer;
  const missing = [values.plan === undefined && '--plan', values.subject === undefined && '--subject', issuer === undefined && '--issuer (or VIGIL_JWT_ISSUER)']
    .filter((m) => m !== false)
    .join(', ');
  if (positionals.length !== 1 || positionals[0] !== 'create' || missing !== '') {
    process.stderr.write(`${missing === '' ? '' : `vigil web license: missing ${missing}\n`}${USAGE}\n`);
    return 2;
  }
  const plan = planSchema.safeParse(values.plan);
  if (!plan.success) {
    throw new ValidationError(`--plan: expected one of ${PLANS.join(', ')}, got "${values.plan}"`, [{ path: 'plan', message: `one of ${PLANS.join(', ')}` }]);
  }
  let store: WebStore;
  try {
    store = await openWebStore(config.database);
  } catch (err) {
    throw new ServiceUnavailableError(
      `cannot open the ${config.database.kind} database: ${err instanceof Error ? err.message : String(err)}`,
      'database_unavailable',
      {
        cause: err,
      },
    );
  }
  try {
    const user = await new UserService(store).ensureIdentity(issuer as string, values.subject as string);
    const { key, license } = await new LicenseService(store, NO_SIGNER, licensePolicy(config)).create(user.id, plan.data);
    if (values.json) process.stdout.write(`${JSON.stringify({ key, license, user })}\n`);
    else {
      process.stdout.write(
        `${key}\n` +
          `license ${license.id}: plan ${license.plan}, ${license.expiresAt === null ? 'never expires' : `expires ${license.expiresAt}`}, ` +
          `for ${user.subject} (${user.issuer})\n` +
          'The key is shown only this once; the database keeps only its hash.\n',
      );
    }
    return 0;
  } finally {
    await store.close();
  }
}
