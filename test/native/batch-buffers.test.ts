/**
 * Flow batches reach JS as the capture session's own buffers (native/binding/capture_wrap.cpp: lent as external
 * ArrayBuffers, recycled once JS cannot reach them). A lent buffer must never be reused while JS can still reach it:
 * batches kept past their callback, or transferred to a worker in detach mode, must still hold their own flows after
 * later batches were written, byte for byte the batches a replay that copies every batch gives.
 */
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import type { Binding } from '../../binding.js';
import { loadBinding } from '../../src/native/load.js';
import { FIXTURES, ROOT, tempDir } from '../helpers/setup.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const COPIES = 8;
const BATCH_FLOWS = 512;

/**
 * `COPIES` copies of the nmap SYN scan capture (1994 flows) one after another, each 1000 s later than the one before
 * (so each copy's flows are new ones): about 16,000 flows, 30-odd batches of 512.
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

/** Every batch of `file`, copied inside its callback from batches the addon copied too (nothing lent). */
async function reference(file: string): Promise<Buffer[]> {
  const out: Buffer[] = [];
  await replay(file, { _lendReserve: Number.MAX_SAFE_INTEGER }, (buffer) => out.push(Buffer.from(buffer.slice(0))));
  return out;
}

/** Collects garbage and turns the event loop until `done()` or 200 rounds have passed. */
async function collectUntil(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('native: flow batch buffers lent to JS', function () {
  let file: string;
  let expected: Buffer[];

  before(async () => {
    file = scanCopies();
    expected = await reference(file);
    expect(expected.length).to.be.at.least(20);
  });

  it('keeps every batch JS still holds intact while the buffers it dropped are reused', async () => {
    const counts = loadBinding()._batchBuffers;
    const before = counts();
    const kept = new Map<number, ArrayBuffer>();
    // Lend every batch (no reserve); keep every other one and collect garbage as batches arrive, so the dropped ones
    // go back to the pool and later batches are written into them.
    const n = await replay(file, { _lendReserve: 0 }, (buffer, i) => {
      if (i % 2 === 1) kept.set(i, buffer);
      if (i % 4 === 0) gc();
    });
    expect(n).to.equal(expected.length);
    await collectUntil(() => counts().finalized > before.finalized);
    const after = counts();
    // Not every batch: one written into a recycled buffer much larger than itself is copied (see LendAsIs).
    expect(after.lent - before.lent).to.be.at.least(expected.length / 2);
    expect(after.finalized - before.finalized).to.be.above(0);
    for (const [i, buffer] of kept) {
      expect(Buffer.from(buffer).equals(expected[i] as Buffer), `batch ${i}`).to.equal(true);
    }
  });

  it('keeps batches a listener kept with the default reserve, byte for byte', async () => {
    const kept: ArrayBuffer[] = [];
    const n = await replay(file, {}, (buffer) => kept.push(buffer));
    expect(n).to.equal(expected.length);
    kept.forEach((buffer, i) => expect(Buffer.from(buffer).equals(expected[i] as Buffer), `batch ${i}`).to.equal(true));
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

  it('a worker that ends while JS still holds lent batches (their session ended) leaves the process healthy', async () => {
    // The worker's environment tears down with every batch still reachable: their finalizers run at its cleanup, after
    // the session that lent them ended, and hand them to the pool that the lent buffers keep alive.
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const addon = require(workerData.addon);
       const kept = [];
       setInterval(() => kept.length, 60000); // alive until terminated
       const lentBefore = addon._batchBuffers().lent;
       const capture = new addon.Capture(); // kept: a collected Capture stops its session
       capture.start(
         { kind: 'file', path: workerData.file, idleTimeoutSec: 60, batchFlows: ${BATCH_FLOWS}, _lendReserve: 0 },
         (event, a) => {
           if (event === 'flows') kept.push(a);
           else if (event === 'end') {
             parentPort.postMessage({ batches: kept.length, lent: addon._batchBuffers().lent - lentBefore, running: capture.running });
           }
         },
       );`,
      { eval: true, workerData: { addon: path.join(ROOT, 'build', 'Release', 'vigil.node'), file } },
    );
    const done = await new Promise<{ batches: number; lent: number; running: boolean }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    expect(done.batches).to.equal(expected.length);
    expect(done.running).to.equal(false);
    expect(done.lent).to.be.at.least(expected.length / 2);
    expect(await worker.terminate()).to.equal(1);
    const again: Buffer[] = [];
    await replay(file, { _lendReserve: 0 }, (buffer) => again.push(Buffer.from(buffer.slice(0))));
    expect(again.length).to.equal(expected.length);
    again.forEach((b, i) => expect(b.equals(expected[i] as Buffer), `batch ${i}`).to.equal(true));
  });
});
