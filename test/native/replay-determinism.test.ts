import { expect } from 'chai';
import path from 'node:path';
import { createSensor } from '../../src/native/capture.js';
import { FIXTURES } from '../helpers/setup.js';

/** Batch sizes of one fast replay, in delivery order; `busyMs` stalls the JS thread on every batch (slow consumer). */
async function batchSizes(file: string, busyMs = 0): Promise<number[]> {
  const sensor = createSensor();
  const sizes: number[] = [];
  sensor.on('flows', (b) => {
    sizes.push(b.length);
    const until = Date.now() + busyMs;
    while (Date.now() < until) {
      // a slow consumer: the replay waits for it (a one-batch queue fills at once)
    }
  });
  const ended = new Promise((resolve) => sensor.on('end', resolve));
  await sensor.start({ kind: 'file', path: file }, { snapshotIntervalSec: 5, _queueDepth: 1 });
  await ended;
  return sizes;
}

describe('Sensor fast replay batching', () => {
  // Regression: batches were also cut on a 100 ms wall-clock timer, so the same file gave different batches from run
  // to run and per-batch detection windows saw different slices (alert counts varied between identical runs).
  it('cuts the same batches on every run (flush timer on packet time, not the wall clock)', async () => {
    const file = path.join(FIXTURES, 'pcaps', 'sv_eth_lan_dns_icmp_icmpv6_smb.pcap');
    const first = await batchSizes(file);
    expect(first.length).to.be.greaterThan(3); // the capture spans minutes of packet time: several flush intervals
    expect(await batchSizes(file)).to.deep.equal(first);
    // a consumer that takes 30 ms per batch stretches the replay over seconds of wall time: same batches
    expect(await batchSizes(file, 30)).to.deep.equal(first);
  });
});
