/**
 * The encoder stage: a fast replay encodes its batches on a thread of its own (native/capture/encode_stage.h), a
 * paced replay and live capture on the capture thread. Both must give JS the same records in the same order,
 * snapshots included (encoded on the capture thread once the stage has run what it holds), and the stage's ring must
 * hold up under a consumer that checks every hand-over (build/stage_check, also run under ASan/UBSan and TSan by
 * `npm run test:asan`).
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

import { replayFile } from '../../src/native/capture.js';
import { FIXTURES, ROOT } from '../helpers/setup.js';

const pcap = (name: string): string => path.join(FIXTURES, 'pcaps', name);

describe('encoder stage', function () {
  this.timeout(60000);

  it('hands every flow, flush and application-layer state over once and in order (stage_check)', () => {
    const r = spawnSync(path.join(ROOT, 'build', 'stage_check'), ['100000', '7'], { encoding: 'utf8' });
    expect(r.stderr).to.equal('');
    expect(r.status).to.equal(0);
    expect(JSON.parse(r.stdout)).to.deep.equal({ flows: 100000, seed: 7, rounds: [true, true, true], ok: true });
  });

  // Application-layer content of every kind the encoder writes: DNS, TLS, HTTP, QUIC, SMB, SSH.
  const files = [
    'sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap',
    'zeek_quic_chromium_ipv6.pcap',
    'sv_eth_lan_dns_icmp_icmpv6_smb.pcap',
    'zeek_ssh_password_guessing.pcap',
    'sv_null_loopback_smb.pcap',
  ];
  for (const file of files) {
    it(`gives the same records from a fast replay (stage) as from a paced one (inline): ${file}`, async () => {
      // Small batches: many flushes pass through the ring. Snapshots every 0.5 s of capture time.
      const options = { batchFlows: 7, snapshotIntervalSec: 0.5 };
      const fast = await replayFile(pcap(file), options);
      const paced = await replayFile(pcap(file), { ...options, speed: 1e9 });
      expect(fast.flows.length).to.be.greaterThan(0);
      expect(fast.flows.some((f) => f.app !== null)).to.equal(true);
      expect(fast.flows).to.deep.equal(paced.flows);
      expect(fast.snapshots).to.deep.equal(paced.snapshots);
      expect(fast.stats.flows).to.equal(fast.flows.length);
      // Every application-layer state came back to the pool before the end.
      expect(fast.stats.appLayer?.counters.states_live).to.equal(0);
    });
  }
});
