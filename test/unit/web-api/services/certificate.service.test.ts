import { expect } from 'chai';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import {
  CERTIFICATE_AUDIENCE,
  CERTIFICATE_TYPE,
  createCertificateSigner,
  loadOrCreateSigningKey,
} from '../../../../src/web-api/services/certificate.service.js';
import { tempDir } from '../../../helpers/setup.js';

describe('certificate.service', () => {
  describe('loadOrCreateSigningKey()', () => {
    it('creates an Ed25519 PEM with mode 0600 once and reads the same key back', () => {
      const file = path.join(tempDir('cert-'), 'keys', 'signing.pem');
      const first = loadOrCreateSigningKey(file);
      expect(first.asymmetricKeyType).to.equal('ed25519');
      expect(statSync(file).mode & 0o777).to.equal(0o600);
      expect(readFileSync(file, 'utf8')).to.match(/^-----BEGIN PRIVATE KEY-----/);
      const again = loadOrCreateSigningKey(file);
      expect(again.export({ format: 'jwk' })).to.deep.equal(first.export({ format: 'jwk' }));
    });
  });

  describe('createCertificateSigner()', () => {
    it('signs EdDSA certificates that verify offline against its JWKS', async () => {
      const key = loadOrCreateSigningKey(path.join(tempDir('cert-'), 'k.pem'));
      const signer = await createCertificateSigner(key, 'https://licenses.vigil.test', 3600);
      expect(signer.jwks.keys).to.have.length(1);
      expect(signer.jwks.keys[0]).to.include({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
      expect(signer.jwks.keys[0]).not.to.have.property('d');
      const now = new Date();
      const { token, expiresAt } = await signer.sign({ id: 'lic-1', plan: 'pro', expiresAt: null }, now);
      expect(decodeProtectedHeader(token)).to.deep.equal({ alg: 'EdDSA', kid: signer.jwks.keys[0].kid, typ: CERTIFICATE_TYPE });
      const { payload } = await jwtVerify(token, createLocalJWKSet(signer.jwks), {
        issuer: 'https://licenses.vigil.test',
        audience: CERTIFICATE_AUDIENCE,
        typ: CERTIFICATE_TYPE,
        algorithms: ['EdDSA'],
      });
      expect(payload).to.include({ sub: 'lic-1', plan: 'pro', license_expires_at: null });
      expect(payload.exp).to.equal(Math.floor(now.getTime() / 1000) + 3600);
      expect(expiresAt).to.equal(new Date((payload.exp as number) * 1000).toISOString());
    });

    it('never certifies beyond the license expiry', async () => {
      const signer = await createCertificateSigner(loadOrCreateSigningKey(path.join(tempDir('cert-'), 'k.pem')), 'https://x.test', 86400);
      const now = new Date('2030-01-01T00:00:00.000Z');
      const { token } = await signer.sign({ id: 'l', plan: 'standard', expiresAt: '2030-01-01T01:00:00.000Z' }, now);
      const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { exp: number };
      expect(payload.exp).to.equal(Date.parse('2030-01-01T01:00:00.000Z') / 1000);
    });

    it('hands out the same certificate for repeated validations within the reuse window only', async () => {
      const key = loadOrCreateSigningKey(path.join(tempDir('cert-'), 'k.pem'));
      const license = { id: 'lic-9', plan: 'pro', expiresAt: null };
      const t0 = new Date('2031-05-01T00:00:00.000Z');
      const reusing = await createCertificateSigner(key, 'https://x.test', 3600, 60);
      const first = await reusing.sign(license, t0);
      expect((await reusing.sign(license, new Date(t0.getTime() + 59_000))).token).to.equal(first.token);
      expect((await reusing.sign({ ...license, plan: 'standard' }, new Date(t0.getTime() + 1000))).token).not.to.equal(first.token);
      const later = await reusing.sign(license, new Date(t0.getTime() + 60_000));
      expect(later.token).not.to.equal(first.token);
      expect(later.expiresAt).to.equal(new Date(t0.getTime() + 60_000 + 3600_000).toISOString());
      const fresh = await createCertificateSigner(key, 'https://x.test', 3600, 0);
      expect((await fresh.sign(license, t0)).token).not.to.equal((await fresh.sign(license, t0)).token);
    });

    it('refuses a key that is not Ed25519', async () => {
      const { generateKeyPairSync } = await import('node:crypto');
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      let thrown: unknown;
      try {
        await createCertificateSigner(privateKey, 'https://x.test', 60);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).to.be.instanceOf(TypeError);
    });
  });
});
