import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadDesktopConfig } from '../../../src/config/desktop.js';
import { ConfigError } from '../../../src/errors.js';
import { DEFAULT_CACHE_KIB } from '../../../src/store/database.js';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadDesktopConfig(env);
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigError);
    return err as ConfigError;
  }
  return expect.fail('expected a ConfigError');
}

describe('config/desktop loadDesktopConfig()', () => {
  it('has the documented defaults with no configuration at all', () => {
    const c = loadDesktopConfig({});
    expect(c).to.deep.include({
      host: '127.0.0.1',
      port: 7878,
      dataDir: path.join(os.homedir(), '.vigil'),
      databaseFile: path.join(os.homedir(), '.vigil', 'vigil.db'),
      tokenFile: path.join(os.homedir(), '.vigil', 'pairing-token'),
      rateLimitMax: 100,
      rateLimitWindowMs: 900_000,
      tokenPolicy: 'auto',
      flowRetentionMs: 24 * 3_600_000,
      flowRetentionMax: 100_000,
      eventsMaxPendingBytes: 1_048_576,
      dbCacheKiB: DEFAULT_CACHE_KIB,
    });
    expect(DEFAULT_CACHE_KIB).to.equal(4096);
    expect(c.corsOrigins).to.deep.equal(['*']);
    expect(c.trustedProxies).to.deep.equal([]);
    expect(c.allowedHosts).to.deep.equal([]);
    expect(c.capture).to.deep.equal({
      mode: 'auto',
      interface: undefined,
      filter: undefined,
      file: undefined,
      replaySpeed: 1,
      replayLoop: true,
      appLayer: true,
      communityIdSeed: 0,
      processes: true,
      processCpuPercent: 1,
    });
    expect(Object.isFrozen(c)).to.equal(true);
    expect(Object.isFrozen(c.capture)).to.equal(true);
  });

  it('reads every variable', () => {
    const c = loadDesktopConfig({
      VIGIL_DESKTOP_HOST: '0.0.0.0',
      VIGIL_DESKTOP_PORT: '0',
      VIGIL_DATA_DIR: '/var/lib/vigil',
      VIGIL_CAPTURE_INTERFACE: 'eth0',
      VIGIL_CAPTURE_FILTER: 'tcp port 443',
      VIGIL_CAPTURE_FILE: '/data/x.pcap',
      VIGIL_REPLAY_SPEED: 'max',
      VIGIL_REPLAY_LOOP: 'false',
      VIGIL_CORS_ORIGINS: 'https://a.example, http://localhost:3000',
      VIGIL_RATE_LIMIT_MAX: '7',
      VIGIL_RATE_LIMIT_WINDOW_MS: '1000',
      VIGIL_TRUSTED_PROXY: '10.0.0.1,::1',
      VIGIL_DESKTOP_ALLOWED_HOSTS: 'vigil.home.arpa, Desktop.LAN.',
      VIGIL_REQUIRE_TOKEN: 'always',
      VIGIL_FLOW_RETENTION_HOURS: '2',
      VIGIL_FLOW_RETENTION_MAX: '5000',
      VIGIL_EVENTS_MAX_PENDING_BYTES: '65536',
      VIGIL_DB_CACHE_KIB: '2048',
      VIGIL_CAPTURE_APP_LAYER: 'off',
      VIGIL_COMMUNITY_ID_SEED: '123',
      VIGIL_CAPTURE_PROCESS: 'off',
      VIGIL_CAPTURE_PROCESS_CPU_PERCENT: '0.5',
    });
    expect(c).to.deep.include({
      host: '0.0.0.0',
      port: 0,
      dataDir: '/var/lib/vigil',
      rateLimitMax: 7,
      rateLimitWindowMs: 1000,
      tokenPolicy: 'always',
      flowRetentionMs: 7_200_000,
      flowRetentionMax: 5000,
      eventsMaxPendingBytes: 65536,
      dbCacheKiB: 2048,
    });
    expect(c.capture).to.deep.equal({
      mode: 'replay',
      interface: 'eth0',
      filter: 'tcp port 443',
      file: '/data/x.pcap',
      replaySpeed: 0,
      replayLoop: false,
      appLayer: false,
      communityIdSeed: 123,
      processes: false,
      processCpuPercent: 0.5,
    });
    expect(c.corsOrigins).to.deep.equal(['https://a.example', 'http://localhost:3000']);
    expect(c.trustedProxies).to.deep.equal(['10.0.0.1', '::1']);
    expect(c.allowedHosts).to.deep.equal(['vigil.home.arpa', 'desktop.lan']);
    expect(loadDesktopConfig({ VIGIL_REPLAY_SPEED: '2.5' }).capture.replaySpeed).to.equal(2.5);
  });

  it('stops on invalid values with an error naming the variable', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ VIGIL_DESKTOP_PORT: 'http' }, 'VIGIL_DESKTOP_PORT'],
      [{ VIGIL_DESKTOP_PORT: '70000' }, 'VIGIL_DESKTOP_PORT'],
      [{ VIGIL_DESKTOP_HOST: 'not a host!' }, 'VIGIL_DESKTOP_HOST'],
      [{ VIGIL_REPLAY_SPEED: 'fast' }, 'VIGIL_REPLAY_SPEED'],
      [{ VIGIL_DB_CACHE_KIB: '16' }, 'VIGIL_DB_CACHE_KIB'],
      [{ VIGIL_CAPTURE_PROCESS: 'maybe' }, 'VIGIL_CAPTURE_PROCESS'],
      [{ VIGIL_CAPTURE_PROCESS_CPU_PERCENT: '0' }, 'VIGIL_CAPTURE_PROCESS_CPU_PERCENT'],
      [{ VIGIL_DB_CACHE_KIB: 'lots' }, 'VIGIL_DB_CACHE_KIB'],
      [{ VIGIL_REPLAY_SPEED: '0' }, 'VIGIL_REPLAY_SPEED'],
      [{ VIGIL_REPLAY_LOOP: 'sometimes' }, 'VIGIL_REPLAY_LOOP'],
      [{ VIGIL_CAPTURE_INTERFACE: '../etc' }, 'VIGIL_CAPTURE_INTERFACE'],
      [{ VIGIL_CAPTURE_MODE: 'live', VIGIL_CAPTURE_FILE: '/x.pcap' }, 'VIGIL_CAPTURE_MODE'],
      [{ VIGIL_CAPTURE_MODE: 'sometimes' }, 'VIGIL_CAPTURE_MODE'],
      [{ VIGIL_CORS_ORIGINS: 'evil' }, 'VIGIL_CORS_ORIGINS'],
      [{ VIGIL_RATE_LIMIT_MAX: '0' }, 'VIGIL_RATE_LIMIT_MAX'],
      [{ VIGIL_RATE_LIMIT_WINDOW_MS: '15m' }, 'VIGIL_RATE_LIMIT_WINDOW_MS'],
      [{ VIGIL_TRUSTED_PROXY: 'proxy.local' }, 'VIGIL_TRUSTED_PROXY'],
      [{ VIGIL_DESKTOP_ALLOWED_HOSTS: 'vigil.lan:7878' }, 'VIGIL_DESKTOP_ALLOWED_HOSTS'],
      [{ VIGIL_DESKTOP_ALLOWED_HOSTS: 'http://vigil.lan' }, 'VIGIL_DESKTOP_ALLOWED_HOSTS'],
      [{ VIGIL_REQUIRE_TOKEN: 'sometimes' }, 'VIGIL_REQUIRE_TOKEN'],
      [{ VIGIL_FLOW_RETENTION_HOURS: '-1' }, 'VIGIL_FLOW_RETENTION_HOURS'],
      [{ VIGIL_FLOW_RETENTION_MAX: '10' }, 'VIGIL_FLOW_RETENTION_MAX'],
      [{ VIGIL_EVENTS_MAX_PENDING_BYTES: '100' }, 'VIGIL_EVENTS_MAX_PENDING_BYTES'],
      [{ VIGIL_EVENTS_MAX_PENDING_BYTES: '1MiB' }, 'VIGIL_EVENTS_MAX_PENDING_BYTES'],
      [{ VIGIL_CAPTURE_APP_LAYER: 'maybe' }, 'VIGIL_CAPTURE_APP_LAYER'],
      [{ VIGIL_COMMUNITY_ID_SEED: '65536' }, 'VIGIL_COMMUNITY_ID_SEED'],
      [{ VIGIL_COMMUNITY_ID_SEED: '-1' }, 'VIGIL_COMMUNITY_ID_SEED'],
    ];
    for (const [env, variable] of cases) {
      const err = configError(env);
      expect(err.variable, JSON.stringify(env)).to.equal(variable);
      expect(err.message.startsWith(`${variable}: `)).to.equal(true);
    }
  });
});
