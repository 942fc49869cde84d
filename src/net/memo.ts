/**
 * A pure function's answers remembered per distinct input, at most `max` of them (the table is emptied when full, so
 * memory stays bounded and a hot set refills at once): for per-flow questions asked about the same few values again
 * and again (addresses, names, certificate dates). `compute` must be pure: a remembered answer equals a fresh one.
 */
export function boundedMemo<K, V>(compute: (key: K) => V, max: number): (key: K) => V {
  const answers = new Map<K, V>();
  return (key: K): V => {
    if (answers.has(key)) return answers.get(key) as V;
    const value = compute(key);
    if (answers.size >= max) answers.clear();
    answers.set(key, value);
    return value;
  };
}
