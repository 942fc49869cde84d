/** `vigil interfaces`: not built yet (placeholder so the CLI table type-checks). */
export async function run(_args: string[]): Promise<number> {
  process.stderr.write('vigil interfaces: not implemented yet\n');
  return 1;
}
