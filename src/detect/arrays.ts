/**
 * Empty arrays that start with the elements kind their contents will give them. A `[]` starts as an array of small
 * integers and changes its map (its "elements kind") when the first object or string is stored in it, or the first
 * hole is left. Code V8 optimized against the final map then deoptimizes ("wrong map") on the first array of a new
 * instance, and compiles again: each detector engine made in a process (a restarted capture, every pipeline run of the
 * detection bench) did that for the detectors whose per-instance arrays are written in their hot loops.
 */

/** An empty array for objects or strings, stored without holes (V8's PACKED_ELEMENTS from the start). */
export function objectArray<T>(): T[] {
  const a: T[] = [undefined as T];
  a.pop();
  return a;
}

/** An empty array for objects or strings that may be stored at any index, leaving holes (HOLEY_ELEMENTS). */
export function sparseObjectArray<T>(): T[] {
  const a: T[] = new Array<T>(1);
  a[0] = undefined as T;
  a.length = 0;
  return a;
}
