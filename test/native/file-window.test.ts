/**
 * A fast replay reads its file through mapped windows (native/common/file_window.h, native/capture/packet_prefetcher.cpp).
 * A file cut short under the mapping would raise SIGBUS and end the process; instead the replay ends with
 * ERR_CAPTURE_READ_FAILURE, saying the file changed, and the process goes on (a second replay works). The window
 * table and its SIGBUS handler are checked on their own by build/window_check (also run under ASan/UBSan by
 * `npm run test:asan`).
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { loadBinding } from '../../src/native/load.js';
import type { Binding } from '../../binding.js';
import { classicPcap, ethernet, ipv4TcpFrame } from '../helpers/frame-bytes.mjs';
import { ROOT } from '../helpers/setup.js';

const PACKETS = 20_000;

/** ~19 MB: PACKETS TCP segments of 900-byte payloads, each its own flow, 1 ms apart. */
function bigCapture(file: string): void {
  const eth = ethernet('02:00:00:00:00:02', '02:00:00:00:00:01', 0x0800);
  const payload = Buffer.alloc(900, 0x41);
  const packets = Array.from({ length: PACKETS }, (_, i) => ({
    us: 1_700_000_000_000_000 + i * 1000,
    frame: ipv4TcpFrame(eth, {
      src: `10.0.${(i >> 8) & 255}.${i & 255}`,
      dst: '10.1.0.1',
      sport: 40000 + (i % 20000),
      dport: 8080,
      seq: i,
      ack: 0,
      flags: 0x18,
      payload,
    }),
  }));
  writeFileSync(file, classicPcap(packets));
}

interface Outcome {
  stats: Binding.RawStats;
  err: (Error & { code?: string }) | undefined;
  batches: number;
}

/** Replays `file` with lent batches (at most one out); `onFirstBatch` runs while the first batch is still held. */
function replay(file: string, onFirstBatch: () => void = () => undefined): Promise<Outcome> {
  const { Capture } = loadBinding();
  const capture = new Capture();
  let batches = 0;
  return new Promise((resolve) => {
    capture.start({ kind: 'file', path: file, snapshotIntervalSec: 0, idleTimeoutSec: 1, batchFlows: 64, lendBatches: true, lendLimit: 1 }, (event, a, err) => {
      if (event === 'flows') {
        batches += 1;
        if (batches === 1) onFirstBatch();
        Capture.releaseBatch(a as ArrayBuffer);
      } else if (event === 'end') {
        resolve({ stats: a as Binding.RawStats, err: err as Outcome['err'], batches });
      }
    });
  });
}

describe('mapped capture files', function () {
  this.timeout(60000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'vigil-window-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads zeros, not SIGBUS, past a cut in a window; other SIGBUS still ends a process (window_check)', () => {
    const r = spawnSync(path.join(ROOT, 'build', 'window_check'), [dir], { encoding: 'utf8' });
    expect(r.stderr).to.equal('');
    expect(JSON.parse(r.stdout)).to.deep.equal({
      zeros_after_truncation: true,
      remap_fresh: true,
      slots_reused: true,
      other_sigbus_kills: true,
      sent_sigbus_kills: true,
    });
    expect(r.status).to.equal(0);
  });

  it('ends a replay whose file is cut short under it with ERR_CAPTURE_READ_FAILURE, and the process goes on', async () => {
    const file = path.join(dir, 'cut.pcap');
    bigCapture(file);
    const whole = await replay(file);
    expect(whole.err).to.equal(undefined);
    expect(whole.stats.packets).to.equal(PACKETS);

    // The first batch comes long before the reader is through the file: cut it to 64 KiB while the batch is held.
    const cut = await replay(file, () => truncateSync(file, 64 * 1024));
    expect(cut.err?.code).to.equal('ERR_CAPTURE_READ_FAILURE');
    expect(cut.err?.message).to.match(/cut\.pcap changed while it was being read/);
    expect(cut.stats.packets).to.be.greaterThan(0).and.lessThan(PACKETS);

    // Still alive, and the next replay of a whole file is whole.
    bigCapture(file);
    const again = await replay(file);
    expect(again.err).to.equal(undefined);
    expect(again.stats.packets).to.equal(PACKETS);
  });
});
