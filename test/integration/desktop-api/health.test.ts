/**
 * `GET /api/health` says `degraded`, and why, when blocking is asked for but cannot be enforced: a firewall backend
 * the OS refuses, or `VIGIL_FIREWALL=auto` finding no firewall tool. Record-only chosen explicitly (`none`) is healthy.
 * Real server on port 0, real SQLite file, capture running (a slow replay).
 */
import { expect } from 'chai';
import { createNftablesAdapter } from '../../../src/firewall/adapters/nftables.js';
import { CommandError, type CommandRunner } from '../../../src/firewall/command-runner.js';
import { healthSchema, type Health } from '../../../src/desktop-api/schemas/health.schema.js';
import { createTestContext, type ContextOptions, type TestContext } from './context.js';

/** A runner as `nft` answers without CAP_NET_ADMIN: every command refused. */
const denied: CommandRunner = (file, args) =>
  Promise.reject(new CommandError(file, args, 1, 'Error: Could not process rule: Operation not permitted', undefined));

describe('GET /api/health and the firewall', function () {
  this.timeout(30_000);
  let ctx: TestContext | undefined;
  afterEach(async () => {
    await ctx?.close();
    ctx = undefined;
  });

  async function health(options: ContextOptions): Promise<Health> {
    ctx = await createTestContext({ detection: false, ...options, env: { VIGIL_REPLAY_SPEED: '0.01', ...options.env } }); // runs for minutes
    await ctx.monitoring.startConfigured();
    const r = await ctx.request('GET', '/api/health');
    expect(r.status).to.equal(200);
    return healthSchema.parse(r.body);
  }

  it('record-only chosen explicitly (VIGIL_FIREWALL=none) with capture running: ok, no reasons', async () => {
    const h = await health({ env: { VIGIL_FIREWALL: 'none' } });
    expect(h.status).to.equal('ok');
    expect(h.reasons).to.deep.equal([]);
    expect(h.firewall).to.deep.equal({ backend: 'none', available: false, desired: 0, applied: null });
  });

  it('a backend the OS refuses: degraded, reason firewall_unavailable with the firewall error', async () => {
    const h = await health({ env: { VIGIL_FIREWALL: 'nftables' }, firewallAdapter: createNftablesAdapter(denied) });
    expect(h.status).to.equal('degraded');
    expect(h.firewall.backend).to.equal('nftables');
    expect(h.firewall.available).to.equal(false);
    expect(h.firewall.error).to.be.a('string').and.contain('Operation not permitted');
    expect(h.reasons).to.deep.equal([{ code: 'firewall_unavailable', detail: h.firewall.error }]);
  });

  it('auto that found no firewall tool: degraded, reason firewall_not_enforcing', async () => {
    const h = await health({ env: { VIGIL_FIREWALL: 'auto' } });
    expect(h.status).to.equal('degraded');
    expect(h.reasons.map((r) => r.code)).to.deep.equal(['firewall_not_enforcing']);
    expect(h.reasons[0].detail).to.contain('VIGIL_FIREWALL=auto').and.contain('not enforced');
  });

  it('capture stopped and the firewall refused: both reasons, capture first', async () => {
    const h = await health({ env: { VIGIL_FIREWALL: 'nftables' }, firewallAdapter: createNftablesAdapter(denied) });
    await ctx!.monitoring.stop();
    const r = await ctx!.request('GET', '/api/health');
    const after = healthSchema.parse(r.body);
    expect(h.reasons.map((x) => x.code)).to.deep.equal(['firewall_unavailable']);
    expect(after.status).to.equal('degraded');
    expect(after.reasons.map((x) => x.code)).to.deep.equal(['capture_stopped', 'firewall_unavailable']);
  });
});
