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

/**
 * The least of `trials` {@link sampledAllocation} measurements of `run`. A regression that allocates on every call
 * shows in every trial; a one-off (a deoptimization while the whole suite's other tests have polluted a hot function's
 * feedback, then its recompile) shows in one, and a single sample once exceeded a bound by 2x that way.
 */
export async function leastSampledAllocation(run: () => void | Promise<void>, trials = 3, samplingInterval = 256): Promise<number> {
  let least = Infinity;
  for (let i = 0; i < trials; i++) least = Math.min(least, await sampledAllocation(run, samplingInterval));
  return least;
}
