/** Running the real `vigil` command from tests: a clean environment and a run to exit with its output. */
import { spawn } from 'node:child_process';
import { ROOT } from './setup.js';

/** The parent's environment without any VIGIL_* variable, plus `extra`. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('VIGIL_')) env[k] = v;
  return { ...env, ...extra };
}

/** What a finished `vigil` run printed, and its exit code (null when killed by a signal). */
export interface VigilRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node bin/vigil.js ARGS` in a clean environment plus `env` until it exits; kills it after `killAfterMs`. */
export async function runVigil(args: string[], env: Record<string, string>, killAfterMs = 60_000): Promise<VigilRun> {
  const proc = spawn(process.execPath, ['bin/vigil.js', ...args], { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => proc.kill('SIGKILL'), killAfterMs);
  const code = await new Promise<number | null>((resolve) => proc.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}
