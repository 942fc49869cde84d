/**
 * The model's onnxruntime session on its own thread: `session.run` in onnxruntime-node computes on the calling thread,
 * so a session in a worker keeps inference off the JS thread (detectors, storage and the APIs run meanwhile).
 * Requests are answered in order; a run's output is transferred back. Its input travels in a buffer the session lends
 * to the worker: transferred there and back with the answer, then reused, so a run allocates no input buffer
 * (allocating one per flow batch, and the page faults of touching it, cost more than the copy into the lent buffer).
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { InferenceSession } from 'onnxruntime-node';

/** What the worker thread runs (CommonJS, loaded with `eval`: nothing to bundle or resolve beyond onnxruntime-node). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const ort = require(workerData.ortPath);
let session = null;
parentPort.on('message', async (m) => {
  try {
    if (m.op === 'create') {
      session = await ort.InferenceSession.create(m.bytes, m.options);
      parentPort.postMessage({ id: m.id, ok: { inputNames: session.inputNames, outputNames: session.outputNames } });
    } else if (m.op === 'run') {
      let reply;
      const transfer = [m.data.buffer];
      try {
        const out = await session.run({ [m.input]: new ort.Tensor('float32', m.data, [m.rows, m.width]) }, [m.output]);
        const t = out[m.output];
        reply = { id: m.id, ok: t ? { data: t.data, dims: t.dims } : null, lent: m.data.buffer };
        if (t) transfer.push(t.data.buffer);
      } catch (err) {
        reply = { id: m.id, error: err instanceof Error ? err.message : String(err), lent: m.data.buffer };
      }
      parentPort.postMessage(reply, transfer);
    } else if (m.op === 'release') {
      if (session) await session.release();
      session = null;
      parentPort.postMessage({ id: m.id, ok: true });
    }
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: err instanceof Error ? err.message : String(err) });
  }
});
`;

interface Reply {
  id: number;
  ok?: unknown;
  error?: string;
  /** A run's input buffer, given back. */
  lent?: ArrayBuffer;
}

/** Smallest input buffer lent to the worker, in rows of the run's width (a flow batch rarely needs more). */
const MIN_LENT_ROWS = 1024;

/** An onnxruntime session living on a worker thread. */
export class WorkerSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  private readonly worker: Worker;
  private readonly pending: Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>;
  private nextId: number;
  private failure: Error | null = null;
  /** Input buffers back from the worker, ready to lend again (at most one per run in flight). */
  private readonly lendable: ArrayBuffer[];

  private constructor(
    worker: Worker,
    pending: WorkerSession['pending'],
    lendable: ArrayBuffer[],
    nextId: number,
    names: { inputNames: string[]; outputNames: string[] },
  ) {
    this.worker = worker;
    this.lendable = lendable;
    this.pending = pending;
    this.nextId = nextId;
    this.inputNames = names.inputNames;
    this.outputNames = names.outputNames;
  }

  /** Starts the worker and creates the session there; rejects with the worker's error message. */
  static async create(bytes: Uint8Array, options: InferenceSession.SessionOptions): Promise<WorkerSession> {
    const ortPath = createRequire(import.meta.url).resolve('onnxruntime-node');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { ortPath } });
    const pending: WorkerSession['pending'] = new Map();
    const lendable: ArrayBuffer[] = [];
    let session: WorkerSession | null = null;
    const failAll = (err: Error): void => {
      if (session) session.failure = err;
      for (const p of pending.values()) p.reject(err);
      pending.clear();
      worker.unref();
    };
    worker.on('message', (m: Reply) => {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.lent !== undefined) lendable.push(m.lent);
      if (pending.size === 0) worker.unref();
      if (m.error !== undefined) p.reject(new Error(m.error));
      else p.resolve(m.ok);
    });
    worker.on('error', (err) => failAll(err));
    worker.on('exit', (code) => failAll(new Error(`inference worker exited (${code})`)));
    const copy = Uint8Array.from(bytes);
    const names = await new Promise<unknown>((resolve, reject) => {
      pending.set(0, { resolve, reject });
      worker.postMessage({ id: 0, op: 'create', bytes: copy, options }, [copy.buffer]);
    }).catch(async (err: unknown) => {
      await worker.terminate();
      throw err;
    });
    session = new WorkerSession(worker, pending, lendable, 1, names as { inputNames: string[]; outputNames: string[] });
    return session;
  }

  private request(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref(); // a pending answer keeps the process alive; an idle worker does not
      this.pending.set(id, { resolve, reject });
      message.id = id; // the caller's own literal
      this.worker.postMessage(message, transfer);
    });
  }

  /**
   * Runs the model on `data` (`rows * width` float32 values, copied: the caller keeps its array) and resolves to
   * output `output`'s data, or null when the model has no such output.
   */
  async run(input: string, output: string, data: Float32Array, rows: number, width: number): Promise<Float32Array | null> {
    let buffer = this.lendable.pop();
    if (buffer === undefined || buffer.byteLength < data.byteLength) buffer = new ArrayBuffer(Math.max(data.length, MIN_LENT_ROWS * width) * 4);
    const lent = new Float32Array(buffer, 0, data.length);
    lent.set(data);
    const r = (await this.request({ op: 'run', input, output, data: lent, rows, width }, [buffer])) as { data: unknown } | null;
    return r && r.data instanceof Float32Array ? r.data : null;
  }

  /** Releases the session and ends the thread. */
  async release(): Promise<void> {
    try {
      if (!this.failure) await this.request({ op: 'release' });
    } finally {
      await this.worker.terminate();
    }
  }
}
