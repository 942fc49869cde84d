/**
 * License certificates: short-lived JWS (EdDSA / Ed25519, made with jose) over a valid license's claims, so the desktop
 * app can check its license offline against the public key served at `/.well-known/jwks.json`.
 * The signing key is a PKCS#8 PEM file created on first start with mode 0600; instances that share a database must
 * share this file too.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { calculateJwkThumbprint, exportJWK, type JWK, SignJWT } from 'jose';

/** `aud` of license certificates: the desktop application. */
export const CERTIFICATE_AUDIENCE = 'vigil-desktop';
/** JOSE `typ` header of license certificates (keeps them apart from any other JWT). */
export const CERTIFICATE_TYPE = 'vigil-license+jwt';

/** Claims certified about one license. */
export interface CertifiedLicense {
  id: string;
  plan: string;
  /** ISO-8601 or null (never expires). */
  expiresAt: string | null;
}

/** Signs license certificates and publishes the verification key. */
export interface CertificateSigner {
  /** The public JWK set (one Ed25519 key with `kid`, `alg`, `use`). */
  readonly jwks: { keys: JWK[] };
  /** Compact JWS; valid until `ttlSec` from `now` or the license's expiry, whichever comes first. */
  sign(license: CertifiedLicense, now: Date): Promise<{ token: string; expiresAt: string }>;
}

/** Reads the PEM at `file`, or creates it (mode 0600) when absent; a concurrent creator wins and is read back. */
export function loadOrCreateSigningKey(file: string): KeyObject {
  try {
    return createPrivateKey(readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  try {
    writeFileSync(file, pem, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return createPrivateKey(readFileSync(file, 'utf8'));
  }
  return privateKey;
}

/** Certificates remembered for reuse (oldest evicted first). */
const REUSE_CACHE_ENTRIES = 10_000;

/**
 * A signer over `privateKey` (Ed25519), issuing as `issuer` (the Web API's public URL).
 * `reuseSec` > 0 hands out the same certificate again for repeated validations of one license within that many seconds
 * (a desktop app polling, a load balancer retrying): an Ed25519 signature through jose costs more than the rest of the
 * validation request. Only VALID answers are certified, and validation checks revocation and expiry in the database
 * before asking for a certificate, so reuse never extends a revoked license; it shortens a certificate's remaining
 * life by at most `reuseSec`.
 */
export async function createCertificateSigner(privateKey: KeyObject, issuer: string, ttlSec: number, reuseSec = 0): Promise<CertificateSigner> {
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new TypeError('the certificate signing key must be Ed25519');
  const publicJwk = await exportJWK(createPublicKey(privateKey));
  const kid = await calculateJwkThumbprint(publicJwk);
  const jwk: JWK = { ...publicJwk, kid, alg: 'EdDSA', use: 'sig' };
  const reused = new Map<string, { token: string; expiresAt: string; issuedAtMs: number }>();
  return {
    jwks: { keys: [jwk] },
    async sign(license, now) {
      const cacheKey = `${license.id}|${license.plan}|${license.expiresAt ?? ''}`;
      if (reuseSec > 0) {
        const hit = reused.get(cacheKey);
        const age = hit === undefined ? Infinity : now.getTime() - hit.issuedAtMs;
        if (hit !== undefined && age >= 0 && age < reuseSec * 1000 && Date.parse(hit.expiresAt) > now.getTime()) {
          return { token: hit.token, expiresAt: hit.expiresAt };
        }
      }
      const nowSec = Math.floor(now.getTime() / 1000);
      let exp = nowSec + ttlSec;
      if (license.expiresAt !== null) exp = Math.min(exp, Math.floor(Date.parse(license.expiresAt) / 1000));
      const token = await new SignJWT({ plan: license.plan, license_expires_at: license.expiresAt })
        .setProtectedHeader({ alg: 'EdDSA', kid, typ: CERTIFICATE_TYPE })
        .setIssuer(issuer)
        .setAudience(CERTIFICATE_AUDIENCE)
        .setSubject(license.id)
        .setIssuedAt(nowSec)
        .setExpirationTime(exp)
        .setJti(randomUUID())
        .sign(privateKey);
      const expiresAt = new Date(exp * 1000).toISOString();
      if (reuseSec > 0) {
        reused.delete(cacheKey);
        if (reused.size >= REUSE_CACHE_ENTRIES) reused.delete(reused.keys().next().value as string);
        reused.set(cacheKey, { token, expiresAt, issuedAtMs: now.getTime() });
      }
      return { token, expiresAt };
    },
  };
}
