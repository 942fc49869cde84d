/** Deterministic pseudo-random integers for property-style tests: `rnd(n)` is in 0..n-1 (LCG, high bits). */
export function seededRandom(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((s / 2 ** 31) * n);
  };
}
