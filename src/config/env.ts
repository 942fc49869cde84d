/**
 * Typed readers for environment variables. Every failure throws a ConfigError naming the variable, so start-up
 * stops with a message like `VIGIL_DESKTOP_PORT: expected an integer between 0 and 65535, got "http"`.
 * Only `config/*.ts` read the environment; everything else receives a frozen Config object.
 */
import { ConfigError } from '../errors.js';

export type Env = Readonly<Record<string, string | undefined>>;

function raw(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

/** A string, or the default when unset/empty. */
export function str(env: Env, name: string, fallback: string): string;
export function str(env: Env, name: string, fallback?: undefined): string | undefined;
export function str(env: Env, name: string, fallback?: string): string | undefined {
  return raw(env, name) ?? fallback;
}

/** An integer in [min, max]. */
export function int(env: Env, name: string, fallback: number, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number {
  const v = raw(env, name);
  if (v === undefined) return fallback;
  if (!/^-?\d+$/.test(v)) throw new ConfigError(name, `expected an integer between ${min} and ${max}, got "${v}"`);
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new ConfigError(name, `expected an integer between ${min} and ${max}, got "${v}"`);
  return n;
}

/** A finite number in [min, max]. */
export function num(env: Env, name: string, fallback: number, min = -Infinity, max = Infinity): number {
  const v = raw(env, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || n > max) throw new ConfigError(name, `expected a number between ${min} and ${max}, got "${v}"`);
  return n;
}

/** A boolean: 1/true/yes/on or 0/false/no/off. */
export function bool(env: Env, name: string, fallback: boolean): boolean {
  const v = raw(env, name);
  if (v === undefined) return fallback;
  if (/^(1|true|yes|on)$/i.test(v)) return true;
  if (/^(0|false|no|off)$/i.test(v)) return false;
  throw new ConfigError(name, `expected true or false, got "${v}"`);
}

/** One of a fixed set of values. */
export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const v = raw(env, name);
  if (v === undefined) return fallback;
  const lower = v.toLowerCase();
  const hit = allowed.find((a) => a === lower);
  if (!hit) throw new ConfigError(name, `expected one of ${allowed.join(', ')}, got "${v}"`);
  return hit;
}

/** A comma-separated list (empty entries dropped). */
export function list(env: Env, name: string, fallback: string[]): string[] {
  const v = raw(env, name);
  if (v === undefined) return fallback;
  return v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
