/** Small helpers the bench suites share: command-line options and the figures' arithmetic. */

/** The value after `--name` on the command line; undefined when the option is absent. */
export const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

/** `v` rounded to `d` decimal places. */
export const round = (v: number, d = 3): number => Math.round(v * 10 ** d) / 10 ** d;

/** The median of `xs` (the mean of the middle two for an even count); `xs` is left as it is. */
export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
