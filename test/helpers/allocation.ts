/**
 * JS heap allocated by a piece of code, measured with V8's sampling heap profiler (node:inspector): every allocation
 * counted, including objects a scavenge or a full GC has collected since, sampled every `samplingInterval` bytes on
 * average. For tests that bound allocation per call on a hot path, so a regression that brings garbage back fails.
 */
import { Session } from 'node:inspector/promises';

/** Bytes allocated while `run` ran (sampled: a statistical estimate, close for many small allocations). */
export async function sampledAllocation(run: () => void | Promise<void>, samplingInterval = 256): Promise<number> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.startSampling', {
      samplingInterval,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    } as object);
    await run();
    const { profile } = await session.post('HeapProfiler.stopSampling');
    let bytes = 0;
    const walk = (node: typeof profile.head): void => {
      bytes += node.selfSize;
      node.children.forEach(walk);
    };
    walk(profile.head);
    return bytes;
  } finally {
    session.disconnect();
  }
}
