/**
 * How the firewall adapters run OS commands: always `execFile` with an argument list (never a shell), optional stdin
 * (for `nft -f -` and `ipset restore` batches). A runner is injectable so tests can target a network namespace
 * (`ip netns exec NS ...`) or record calls, without changing what production runs.
 */
import { execFile } from 'node:child_process';

/** Output of a finished command. */
export interface CommandResult {
  stdout: string;
  stderr: string;
}

/** Runs `file` with `args` (no shell) and optional stdin; rejects with a {@link CommandError} on failure. */
export type CommandRunner = (file: string, args: readonly string[], options?: { input?: string }) => Promise<CommandResult>;

/** A command failed to start or exited non-zero. `detail` is a one-line human reason (stderr, or "not installed"). */
export class CommandError extends Error {
  readonly file: string;
  readonly args: readonly string[];
  readonly exitCode: number | null;
  readonly stderr: string;
  /** True when the failure looks like a missing privilege (EPERM/EACCES, "Operation not permitted"). */
  readonly permissionDenied: boolean;
  /** True when the program is not installed (ENOENT). */
  readonly notFound: boolean;

  constructor(file: string, args: readonly string[], exitCode: number | null, stderr: string, errno?: string) {
    const notFound = errno === 'ENOENT';
    const firstLine =
      stderr
        .trim()
        .split('\n')
        .find((l) => l.trim() !== '') ?? '';
    const detail = notFound ? `${file} is not installed` : firstLine || `${file} exited with code ${String(exitCode)}`;
    super(detail);
    this.name = 'CommandError';
    this.file = file;
    this.args = args;
    this.exitCode = exitCode;
    this.stderr = stderr;
    this.notFound = notFound;
    this.permissionDenied = errno === 'EACCES' || errno === 'EPERM' || /operation not permitted|permission denied|you must be root/i.test(stderr);
  }
}

/** Upper bound for command output (listing 100k set members is a few MB). */
const MAX_BUFFER = 256 * 1024 * 1024;

/** The production runner: `child_process.execFile` without a shell. */
export const execFileRunner: CommandRunner = (file, args, options) =>
  new Promise((resolve, reject) => {
    const child = execFile(
      file,
      [...args],
      { maxBuffer: MAX_BUFFER, encoding: 'utf8', shell: false, env: { ...process.env, LC_ALL: 'C' } },
      (err, stdout, stderr) => {
        if (err) {
          const e = err as NodeJS.ErrnoException & { code?: string | number };
          const exitCode = typeof e.code === 'number' ? e.code : null;
          const errno = typeof e.code === 'string' ? e.code : undefined;
          reject(new CommandError(file, args, exitCode, String(stderr ?? '') || e.message, errno));
          return;
        }
        resolve({ stdout: String(stdout), stderr: String(stderr) });
      },
    );
    if (child.stdin) {
      child.stdin.on('error', () => undefined);
      child.stdin.end(options?.input ?? '');
    }
  });

/**
 * Wraps a runner so every command runs inside network namespace `ns` (`ip netns exec NS file args...`). Used by tests
 * and benchmarks; the namespace name is validated so it cannot become an option or a path.
 */
export function netnsRunner(ns: string, inner: CommandRunner = execFileRunner): CommandRunner {
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/.test(ns)) throw new RangeError(`invalid network namespace name: ${ns}`);
  return (file, args, options) =>
    inner('ip', ['netns', 'exec', ns, file, ...args], options).catch((err: unknown) => {
      if (err instanceof CommandError) throw new CommandError(file, args, err.exitCode, err.stderr, err.notFound ? 'ENOENT' : undefined);
      throw err;
    });
}
