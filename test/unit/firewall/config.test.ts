import { expect } from 'chai';
import { loadFirewallConfig } from '../../../src/config/firewall.js';
import { ConfigError } from '../../../src/errors.js';

describe('loadFirewallConfig()', () => {
  it('has safe defaults', () => {
    expect(loadFirewallConfig({})).to.deep.equal({
      backend: 'auto',
      allowlist: [],
      unblockOnStop: false,
      sweepIntervalMs: 5000,
      reassertIntervalMs: 60000,
      watchIntervalMs: 1000,
    });
  });

  it('reads and normalises every variable, and freezes the result', () => {
    const c = loadFirewallConfig({
      VIGIL_FIREWALL: 'IPTables',
      VIGIL_FIREWALL_ALLOWLIST: '192.0.2.1, ::ffff:198.51.100.2 ,2001:DB8::/32',
      VIGIL_FIREWALL_UNBLOCK_ON_STOP: 'yes',
      VIGIL_FIREWALL_SWEEP_INTERVAL_MS: '1000',
      VIGIL_FIREWALL_REASSERT_INTERVAL_MS: '0',
      VIGIL_FIREWALL_WATCH_INTERVAL_MS: '250',
    });
    expect(c).to.deep.equal({
      backend: 'iptables',
      allowlist: ['192.0.2.1', '198.51.100.2', '2001:db8::/32'],
      unblockOnStop: true,
      sweepIntervalMs: 1000,
      reassertIntervalMs: 0,
      watchIntervalMs: 250,
    });
    expect(Object.isFrozen(c)).to.equal(true);
  });

  it('names the variable when a value is invalid', () => {
    expect(() => loadFirewallConfig({ VIGIL_FIREWALL: 'ufw' }))
      .to.throw(ConfigError)
      .with.property('variable', 'VIGIL_FIREWALL');
    expect(() => loadFirewallConfig({ VIGIL_FIREWALL_ALLOWLIST: '192.0.2.1,nope' }))
      .to.throw(ConfigError, /nope/)
      .with.property('variable', 'VIGIL_FIREWALL_ALLOWLIST');
    expect(() => loadFirewallConfig({ VIGIL_FIREWALL_SWEEP_INTERVAL_MS: '5' }))
      .to.throw(ConfigError)
      .with.property('variable', 'VIGIL_FIREWALL_SWEEP_INTERVAL_MS');
    expect(() => loadFirewallConfig({ VIGIL_FIREWALL_WATCH_INTERVAL_MS: 'often' }))
      .to.throw(ConfigError)
      .with.property('variable', 'VIGIL_FIREWALL_WATCH_INTERVAL_MS');
  });
});
