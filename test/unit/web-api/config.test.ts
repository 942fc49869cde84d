import { expect } from 'chai';
import path from 'node:path';
import { loadWebConfig } from '../../../src/config/web.js';
import { ConfigError } from '../../../src/errors.js';

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadWebConfig()', () => {
  it('defaults to SQLite in the data dir, in-memory limits, 60 validations per minute and no identity provider', () => {
    const c = loadWebConfig({ VIGIL_WEB_DATA_DIR: '/srv/vigil' });
    expect(c).to.deep.include({ host: '127.0.0.1', port: 8787, publicUrl: 'http://127.0.0.1:8787', trustProxy: false, redisUrl: undefined, jwt: undefined });
    expect(c.database).to.deep.equal({ kind: 'sqlite', file: path.join('/srv/vigil', 'web.sqlite') });
    expect(c.signingKeyFile).to.equal(path.join('/srv/vigil', 'license-signing-key.pem'));
    expect(c.rateLimit).to.deep.equal({ windowMs: 60000, validatePerWindow: 60, protectedPerWindow: 120, publicPerWindow: 600, authFailuresPerWindow: 30 });
    expect(Object.isFrozen(c)).to.equal(true);
  });

  it('selects PostgreSQL for postgres:// URLs and reads the JWT settings', () => {
    const c = loadWebConfig({
      VIGIL_WEB_DATABASE_URL: 'postgres://u:p@db:5432/vigil',
      VIGIL_REDIS_URL: 'redis://cache:6379',
      VIGIL_JWT_ISSUER: 'https://id.example',
      VIGIL_JWT_AUDIENCE: 'https://api.example',
      VIGIL_WEB_CORS_ORIGINS: 'https://a.example, https://b.example',
      VIGIL_WEB_PUBLIC_URL: 'https://licenses.example/',
    });
    expect(c.database).to.deep.equal({ kind: 'postgres', url: 'postgres://u:p@db:5432/vigil' });
    expect(c.redisUrl).to.equal('redis://cache:6379');
    expect(c.jwt).to.deep.include({ issuer: 'https://id.example', audience: 'https://api.example', jwksUrl: undefined, clockToleranceSec: 30 });
    expect(c.corsOrigins).to.deep.equal(['https://a.example', 'https://b.example']);
    expect(c.publicUrl).to.equal('https://licenses.example');
  });

  it('names the variable when a value is wrong', () => {
    expect(configError(() => loadWebConfig({ VIGIL_WEB_PORT: 'http' })).variable).to.equal('VIGIL_WEB_PORT');
    expect(configError(() => loadWebConfig({ VIGIL_WEB_DATABASE_URL: 'mysql://x' })).variable).to.equal('VIGIL_WEB_DATABASE_URL');
    expect(configError(() => loadWebConfig({ VIGIL_JWT_AUDIENCE: 'a' })).variable).to.equal('VIGIL_JWT_ISSUER');
    expect(configError(() => loadWebConfig({ VIGIL_JWT_ISSUER: 'https://id.example' })).variable).to.equal('VIGIL_JWT_AUDIENCE');
  });

  it('refuses symmetric JWS algorithms in the allowlist', () => {
    const err = configError(() => loadWebConfig({ VIGIL_JWT_ISSUER: 'https://id.example', VIGIL_JWT_AUDIENCE: 'a', VIGIL_JWT_ALGORITHMS: 'RS256,HS256' }));
    expect(err.variable).to.equal('VIGIL_JWT_ALGORITHMS');
    expect(err.message).to.contain('HS256');
  });
});

describe('loadWebConfig() license plans', () => {
  it('makes only the standard plan self-service by default, with no administrators', () => {
    const c = loadWebConfig({});
    expect(c.selfServicePlans).to.deep.equal(['standard']);
    expect(c.adminSubjects).to.deep.equal([]);
    expect(Object.isFrozen(c.selfServicePlans) && Object.isFrozen(c.adminSubjects)).to.equal(true);
  });

  it('reads VIGIL_WEB_SELF_SERVICE_PLANS (none = empty, repeats dropped) and VIGIL_WEB_ADMIN_SUBJECTS', () => {
    const c = loadWebConfig({ VIGIL_WEB_SELF_SERVICE_PLANS: 'pro, standard,pro', VIGIL_WEB_ADMIN_SUBJECTS: 'auth0|42, carol' });
    expect(c.selfServicePlans).to.deep.equal(['pro', 'standard']);
    expect(c.adminSubjects).to.deep.equal(['auth0|42', 'carol']);
    expect(loadWebConfig({ VIGIL_WEB_SELF_SERVICE_PLANS: 'none' }).selfServicePlans).to.deep.equal([]);
  });

  it('refuses an unknown plan, naming the variable and the plans', () => {
    const err = configError(() => loadWebConfig({ VIGIL_WEB_SELF_SERVICE_PLANS: 'standard,free' }));
    expect(err.variable).to.equal('VIGIL_WEB_SELF_SERVICE_PLANS');
    expect(err.message).to.equal('VIGIL_WEB_SELF_SERVICE_PLANS: expected plans among standard, pro, enterprise (or none), got "free"');
  });
});
