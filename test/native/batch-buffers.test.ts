/**
 * Flow batches of a session whose callback detaches them (detachBatches) reach JS as the session's own buffers
 * (native/binding/capture_wrap.cpp: lent as external ArrayBuffers, taken back when the callback returns), and so do
 * those of a session whose consumer gives each back itself (lendBatches, Capture.releaseBatch); others as copies. A buffer must never be reused while JS can still reach it: every batch, read in its callback, kept past it
 * (not detached) or posted to a worker, holds its own flows after later batches were written, byte for byte the
 * batches of a replay that copies every batch.
 */
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Binding } from '../../binding.js';
import { createSensor, givesBatchesBack, releaseFlowBatch, REPLAY_AHEAD_MAX } from '../../src/native/capture.js';
import type { FlowRecord } from '../../src/native/flow-record.js';
import { loadBinding } from '../../src/native/load.js';
import { FIXTURES, tempDir } from '../helpers/setup.js';

const COPIES = 8;
const BATCH_FLOWS = 512;

/**
 * `COPIES` copies of the nmap SYN scan capture (1994 flows) one after another, each 1000 s later than the one before
 * (so each copy's flows are new ones): about 16,000 flows, 50 batches of up to 512.
 */
function scanCopies(): string {
  const src = readFileSync(path.join(FIXTURES, 'pcaps', 'ndpi_nmap_syn_portscan.pcap'));
  expect(src.readUInt32LE(0)).to.equal(0xa1b2c3d4); // microsecond, little-endian
  const parts: Buffer[] = [src.subarray(0, 24)];
  for (let k = 0; k < COPIES; k++) {
    const copy = Buffer.from(src.subarray(24));
    for (let off = 0; off + 16 <= copy.length; off += 16 + copy.readUInt32LE(off + 8)) {
      copy.writeUInt32LE(copy.readUInt32LE(off) + k * 1000, off);
    }
    parts.push(copy);
  }
  const file = path.join(tempDir('batch-buffers-'), 'scan-copies.pcap');
  writeFileSync(file, Buffer.concat(parts));
  return file;
}

type Options = Partial<Binding.CaptureStartOptions>;

/** One replay through the addon's Capture; `onBatch` sees each batch buffer in its callback. Resolves at the end. */
function replay(file: string, options: Options, onBatch: (buffer: ArrayBuffer, index: number) => void): Promise<number> {
  const capture = new (loadBinding().Capture)();
  let index = 0;
  return new Promise<number>((resolve, reject) => {
    capture.start({ kind: 'file', path: file, snapshotIntervalSec: 0, idleTimeoutSec: 60, batchFlows: BATCH_FLOWS, ...options }, (event, a, err) => {
      if (event === 'flows') onBatch(a as ArrayBuffer, index++);
      else if (event === 'end') {
        expect(capture.running).to.equal(false); // also keeps `capture` reachable: a collected Capture stops
        if (err) reject(err as Error);
        else resolve(index);
      }
    });
  });
}

/** Every batch of `file`, copied inside its callback from batches the addon copied too (not detached: nothing lent). */
async function reference(file: string): Promise<Buffer[]> {
  const out: Buffer[] = [];
  await replay(file, {}, (buffer) => out.push(Buffer.from(buffer.slice(0))));
  return out;
}

describe('native: flow batch buffers lent to JS', function () {
  let file: string;
  let expected: Buffer[];

  before(async () => {
    file = scanCopies();
    expected = await reference(file);
    expect(expected.length).to.be.at.least(20);
  });

  it('detach mode: lends every batch and takes it back when the callback returns, each one intact', async () => {
    const counts = loadBinding()._batchBuffers;
    const before = counts();
    const seen: ArrayBuffer[] = [];
    let intact = 0;
    const n = await replay(file, { detachBatches: true }, (buffer, i) => {
      // Read at the end of a slow callback: the capture thread has written later batches meanwhile, into buffers
      // taken back from earlier batches, never into this one.
      const until = Date.now() + 5;
      while (Date.now() < until) {
        // a slow consumer
      }
      if (Buffer.from(buffer).equals(expected[i] as Buffer)) intact++;
      seen.push(buffer);
    });
    expect(n).to.equal(expected.length);
    expect(intact).to.equal(n);
    expect(seen.every((b) => b.byteLength === 0)).to.equal(true); // detached: JS cannot reach the memory any more
    const after = counts();
    expect(after.lent - before.lent).to.equal(n);
    expect(after.reclaimed - before.reclaimed).to.equal(n);
  });

  it('without detaching, batches a listener keeps stay intact to the end (copies, not lent)', async () => {
    const counts = loadBinding()._batchBuffers;
    const before = counts();
    const kept: ArrayBuffer[] = [];
    const n = await replay(file, {}, (buffer) => kept.push(buffer));
    expect(n).to.equal(expected.length);
    expect(counts().lent - before.lent).to.equal(0);
    kept.forEach((buffer, i) => expect(Buffer.from(buffer).equals(expected[i] as Buffer), `batch ${i}`).to.equal(true));
  });

  it('lend mode: a batch stays intact until JS gives it back, then its memory carries later batches', async () => {
    const binding = loadBinding();
    const before = binding._batchBuffers();
    const held: ArrayBuffer[] = [];
    let intactOnRelease = 0;
    let released = 0;
    let refused = 0;
    const n = await replay(file, { lendBatches: true }, (buffer, i) => {
      held.push(buffer);
      // Give back every batch but the last two, two batches late: the capture thread has written later batches
      // meanwhile, never into a buffer JS still holds.
      if (i < 2) return;
      const old = held[i - 2] as ArrayBuffer;
      if (Buffer.from(old).equals(expected[i - 2] as Buffer)) intactOnRelease++;
      if (binding.Capture.releaseBatch(old)) released++;
      if (!binding.Capture.releaseBatch(old)) refused++; // a second time: nothing to give back
      expect(old.byteLength).to.equal(0); // detached: JS cannot reach the memory any more
    });
    expect(n).to.equal(expected.length);
    expect(released).to.equal(n - 2);
    expect(intactOnRelease).to.equal(n - 2);
    expect(refused).to.equal(n - 2);
    // The last two, kept past the end of their session, are intact and can still be given back.
    held.slice(-2).forEach((buffer, k) => expect(Buffer.from(buffer).equals(expected[n - 2 + k] as Buffer)).to.equal(true));
    for (const buffer of held.slice(-2)) expect(binding.Capture.releaseBatch(buffer)).to.equal(true);
    const after = binding._batchBuffers();
    expect(after.lent - before.lent).to.equal(n);
    expect(after.released - before.released).to.equal(n);
    expect(after.reclaimed - before.reclaimed).to.equal(0);
    // Not a lent batch: a copy of one, or any other buffer.
    expect(binding.Capture.releaseBatch(new ArrayBuffer(64))).to.equal(false);
    expect(() => binding.Capture.releaseBatch({} as ArrayBuffer)).to.throw(TypeError, /must be an ArrayBuffer/);
  });

  it('lend limit: a replay runs at most that many batches ahead of a consumer that gives them back late', async () => {
    const binding = loadBinding();
    const before = binding._batchBuffers();
    const out: ArrayBuffer[] = [];
    let most = 0;
    let intact = 0;
    let index = 0;
    const n = await replay(file, { lendBatches: true, lendLimit: 3 }, (buffer) => {
      const i = index++;
      out.push(buffer);
      most = Math.max(most, out.length);
      // Given back a few milliseconds later (a consumer slower than the replay), after a check that later batches did
      // not overwrite it. Without the limit the replay hands over all of them meanwhile.
      setTimeout(() => {
        if (Buffer.from(buffer).equals(expected[i] as Buffer)) intact++;
        out.splice(out.indexOf(buffer), 1);
        binding.Capture.releaseBatch(buffer);
      }, 3);
    });
    await new Promise((resolve) => setTimeout(resolve, 50)); // the last ones' timers
    expect(n).to.equal(expected.length);
    expect(intact).to.equal(n);
    expect(most).to.be.at.most(3);
    const after = binding._batchBuffers();
    expect(after.released - before.released).to.equal(n);
    expect(after.lendWaits - before.lendWaits).to.be.above(0);
    expect(after.lendTimeouts - before.lendTimeouts).to.equal(0);
  });

  it("spares: the buffers of a finished session carry the next session's batches", async () => {
    const binding = loadBinding();
    const once = async (): Promise<{ batches: number; fresh: number }> => {
      const before = binding._batchBuffers();
      const batches = await replay(file, { lendBatches: true, lendLimit: 3 }, (buffer) => binding.Capture.releaseBatch(buffer));
      return { batches, fresh: binding._batchBuffers().fresh - before.fresh };
    };
    const first = await once();
    await new Promise((resolve) => setTimeout(resolve, 50)); // the session's teardown on the JS thread
    const second = await once();
    expect(second.batches).to.equal(first.batches);
    expect(second.batches).to.be.above(10);
    // A session's pool starts empty, so its first batch needs a new buffer unless it took a finished session's spares
    // (the first one here may have taken those of the tests before it): the second took the first's, for every batch.
    expect(second.fresh).to.equal(0);
  });

  it('lend limit: a consumer that never gives batches back slows the replay but does not stall it', async () => {
    const binding = loadBinding();
    const before = binding._batchBuffers();
    const kept: ArrayBuffer[] = [];
    // One copy of the scan (7 batches), 2 lent at most: the capture thread waits (bounded) for each of the other 5.
    const single = path.join(FIXTURES, 'pcaps', 'ndpi_nmap_syn_portscan.pcap');
    const n = await replay(single, { lendBatches: true, lendLimit: 2 }, (buffer) => kept.push(buffer));
    expect(n).to.be.at.least(5);
    const after = binding._batchBuffers();
    expect(after.lendTimeouts - before.lendTimeouts).to.equal(n - 2);
    // Kept past the end of the replay, every batch is still its own.
    const reference = await (async () => {
      const copies: Buffer[] = [];
      await replay(single, {}, (buffer) => copies.push(Buffer.from(buffer.slice(0))));
      return copies;
    })();
    expect(reference.length).to.equal(n);
    kept.forEach((buffer, i) => expect(Buffer.from(buffer).equals(reference[i] as Buffer), `batch ${i}`).to.equal(true));
    for (const buffer of kept) binding.Capture.releaseBatch(buffer);
  });

  it('sensor: a columnFlows batch goes back when every listener gave it back, not before', async () => {
    const binding = loadBinding();
    const before = binding._batchBuffers();
    const sensor = createSensor();
    const a: FlowRecord[][] = [];
    const b: FlowRecord[][] = [];
    const srcPorts: number[] = [];
    sensor.on('columnFlows', (flows) => a.push(flows));
    sensor.on('columnFlows', (flows) => b.push(flows));
    const ended = new Promise<void>((resolve) => sensor.on('end', () => resolve()));
    await sensor.start({ kind: 'file', path: file }, { snapshotIntervalSec: 0, idleTimeoutSec: 60, batchFlows: BATCH_FLOWS });
    await ended;
    expect(a.length).to.equal(expected.length);
    for (let i = 0; i < a.length; i++) {
      const flows = a[i] as FlowRecord[];
      expect(b[i]).to.equal(flows); // both listeners get the same records
      const releasedBefore = binding._batchBuffers().released;
      releaseFlowBatch(flows); // the first listener is done: the second still reads them
      expect(binding._batchBuffers().released).to.equal(releasedBefore);
      srcPorts.push((flows[0] as FlowRecord).srcPort);
      expect(flows[0]?.srcIp).to.match(/^\d+\.\d+\.\d+\.\d+$/);
      releaseFlowBatch(flows); // the second is done too
    }
    expect(srcPorts.every((p) => Number.isInteger(p) && p > 0)).to.equal(true);
    const after = binding._batchBuffers();
    expect(after.lent - before.lent).to.equal(a.length);
    expect(after.released - before.released).to.equal(a.length);
    // Given back: the records' buffer is detached, and reading one says so rather than returning nothing.
    expect(() => (a[0] as FlowRecord[])[0]?.srcPort).to.throw(Error, /srcPort read after its batch was given back/);
    expect(() => (a[0] as FlowRecord[])[0]?.serverName).to.throw(Error, /serverName read after its batch was given back/);
    releaseFlowBatch(a[0] as FlowRecord[]); // a third call is a no-op
    expect(() => givesBatchesBack(() => undefined, 0)).to.throw(RangeError, /inFlight must be a whole number of at least 1, got 0/);
    expect(binding._batchBuffers().released - before.released).to.equal(a.length);
  });

  it(`sensor: a replay runs at most ${REPLAY_AHEAD_MAX} batches ahead, whatever a listener declares it can hold`, async () => {
    const sensor = createSensor();
    const out: FlowRecord[][] = [];
    let most = 0;
    let batches = 0;
    // Declares room for 64 and gives each batch back a few milliseconds later: without the cap all ~50 are out.
    sensor.on(
      'columnFlows',
      givesBatchesBack((flows) => {
        batches++;
        out.push(flows);
        most = Math.max(most, out.length);
        setTimeout(() => {
          out.splice(out.indexOf(flows), 1);
          releaseFlowBatch(flows);
        }, 3);
      }, 64),
    );
    const ended = new Promise<void>((resolve) => sensor.on('end', () => resolve()));
    await sensor.start({ kind: 'file', path: file }, { snapshotIntervalSec: 0, idleTimeoutSec: 60, batchFlows: BATCH_FLOWS });
    await ended;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(batches).to.equal(expected.length);
    expect(batches).to.be.above(REPLAY_AHEAD_MAX + 10);
    expect(most).to.be.at.most(REPLAY_AHEAD_MAX);
    expect(most).to.be.above(3);
  });

  it('detach mode: takes back the buffers JS left; a batch posted to a worker is read there intact at the end', async () => {
    const counts = loadBinding()._batchBuffers;
    const before = counts();
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       const kept = [];
       parentPort.on('message', (m) => (m === 'done' ? parentPort.postMessage(kept) : kept.push(m)));`,
      { eval: true },
    );
    try {
      const sent: number[] = [];
      const left: ArrayBuffer[] = [];
      let detachedByJs = 0;
      const n = await replay(file, { detachBatches: true }, (buffer, i) => {
        if (i % 3 === 0) {
          // Node marks external ArrayBuffers untransferable: Node 20 copies this one, later versions throw
          // DataCloneError. Either way the addon must not take back memory the worker can reach.
          worker.postMessage(buffer, [buffer]);
          sent.push(i);
          if (buffer.byteLength === 0) detachedByJs++;
        } else left.push(buffer);
      });
      expect(n).to.equal(expected.length);
      // The addon detached (and took back) every buffer JS had not detached itself.
      expect(left.every((b) => b.byteLength === 0)).to.equal(true);
      const mid = counts();
      expect(mid.lent - before.lent).to.equal(n);
      expect(mid.reclaimed - before.reclaimed).to.equal(n - detachedByJs);
      // Read in the worker after every later batch was written (into the buffers taken back).
      const back = await new Promise<ArrayBuffer[]>((resolve) => {
        worker.once('message', resolve);
        worker.postMessage('done');
      });
      expect(back.length).to.equal(sent.length);
      back.forEach((buffer, k) => {
        const i = sent[k] as number;
        expect(Buffer.from(buffer).equals(expected[i] as Buffer), `batch ${i}`).to.equal(true);
      });
    } finally {
      await worker.terminate();
    }
  });
});
