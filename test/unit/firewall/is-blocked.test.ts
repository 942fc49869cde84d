/**
 * `isBlocked`, which detection asks twice per flow: the same answers with nothing blocked, single addresses,
 * prefixes, other spellings and expired blocks, and a bound on the garbage each call leaves (with nothing blocked it
 * used to parse both addresses and format an ISO time: ~1.7 KB per call in the soak's profile).
 */
import { expect } from 'chai';
import { loadFirewallConfig } from '../../../src/config/firewall.js';
import { createNoneAdapter } from '../../../src/firewall/adapters/none.js';
import { createFirewallService, type ManagedFirewallService } from '../../../src/firewall/firewall.service.js';
import { closeStore, openStore, type Store } from '../../../src/store/database.js';
import { sampledAllocation } from '../../helpers/allocation.js';

describe('firewall: isBlocked()', () => {
  let store: Store;
  let service: ManagedFirewallService;
  let nowMs: number;

  beforeEach(async () => {
    store = await openStore(':memory:');
    nowMs = Date.UTC(2026, 10, 27, 16, 0, 0);
    service = createFirewallService({
      db: store,
      adapter: createNoneAdapter(),
      config: loadFirewallConfig({ VIGIL_FIREWALL: 'none', VIGIL_FIREWALL_REASSERT_INTERVAL_MS: '0' }),
      protectedAddresses: () => ({ self: [], gateways: [], dns: [], allowlist: [] }),
      now: () => new Date(nowMs),
      log: () => undefined,
    });
    await service.start();
  });
  afterEach(async () => {
    await service.stop();
    await closeStore(store);
  });

  it('answers false for anything with nothing blocked, valid or not', () => {
    for (const ip of ['203.0.113.7', '0.0.0.0', '::', '2001:db8::1', 'garbage', '']) expect(service.isBlocked(ip), ip).to.equal(false);
  });

  it('single addresses in any spelling, prefixes by containment, and a block past its expiry no more', async () => {
    await service.block({ ip: '203.0.113.7', actor: 'cli' });
    await service.block({ ip: '2001:db8::/32', actor: 'cli' });
    await service.block({ ip: '198.51.100.9', durationSeconds: 600, actor: 'autoblock' });
    for (const ip of ['203.0.113.7', '::ffff:203.0.113.7', '2001:DB8::42', '2001:db8:ffff::1', '198.51.100.9'])
      expect(service.isBlocked(ip), ip).to.equal(true);
    for (const ip of ['203.0.113.8', '2001:db9::1', '0.0.0.0', 'garbage', '203.0.113.7%eth0']) expect(service.isBlocked(ip), ip).to.equal(false);
    nowMs += 600_000;
    expect(service.isBlocked('198.51.100.9')).to.equal(false); // expired, before the sweep removes it
    expect(service.isBlocked('203.0.113.7')).to.equal(true);
  });

  it('allocates at most 8 bytes per call with nothing blocked and 32 with blocks (repeated flow addresses)', async () => {
    const ips = Array.from({ length: 200 }, (_, i) => `10.${i % 7}.${i}.${(i * 37) % 256}`);
    const ask = (): void => {
      for (let n = 0; n < 500; n++) for (const ip of ips) service.isBlocked(ip);
    };
    // Five rounds (500,000 calls) per measurement, so what other suites' timers allocate around the sampled window
    // (the profiler starts and stops asynchronously) weighs little per call.
    const measure = (): Promise<number> =>
      sampledAllocation(() => {
        for (let r = 0; r < 5; r++) ask();
      });
    ask(); // warm
    const empty = await measure();
    await service.block({ ip: '203.0.113.0/24', actor: 'cli' });
    await service.block({ ip: '198.51.100.9', durationSeconds: 600, actor: 'autoblock' });
    ask();
    const withBlocks = await measure();
    expect(empty / 500_000).to.be.below(8); // 0.3 measured
    expect(withBlocks / 500_000).to.be.below(32); // 8 measured; 64 with a [key, value] pair per prefix
  });
});
