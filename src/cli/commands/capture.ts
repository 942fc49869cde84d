/** `vigil capture`: not built yet (placeholder so the CLI table type-checks). */
export async function run(_args: string[]): Promise<number> {
  process.stderr.write('vigil capture: not implemented yet\n');
  return 1;
}
