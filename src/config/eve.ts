/**
 * The EVE JSON export (Suricata's event format, `src/export/`), read from the environment. Invalid values throw a
 * ConfigError naming the variable.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | VIGIL_EVE_FILE | off | write alert and flow records as EVE JSON lines to this file (`~` expanded); unset or `off`: no export |
 * | VIGIL_EVE_MAX_MB | 100 | rotate when the file would pass this size (MiB, 1..1048576): `eve.json` -> `eve.json.1` -> ... |
 * | VIGIL_EVE_KEEP | 5 | rotated files kept (`.1` newest .. `.N` oldest; 0: the full file is deleted instead) |
 * | VIGIL_EVE_QUEUE_MB | 16 | most bytes of records waiting to be written; past it records are dropped and counted |
 */
import os from 'node:os';
import path from 'node:path';
import { type Env, int, str } from './env.js';

/** The EVE export's settings; `file` undefined: the export is off. */
export interface EveConfig {
  /** Absolute path of the EVE file; undefined when the export is off. */
  readonly file: string | undefined;
  /** Size (bytes) the file may reach before it is rotated. */
  readonly maxBytes: number;
  /** Rotated files kept beside the live one. */
  readonly keep: number;
  /** Most bytes of encoded records waiting for the disk; a record past it is dropped (counted), capture never waits. */
  readonly queueBytes: number;
}

const MIB = 1024 * 1024;

/** Reads the EVE settings from `env`; throws ConfigError naming the variable. */
export function loadEveConfig(env: Env = process.env): EveConfig {
  const setting = str(env, 'VIGIL_EVE_FILE');
  const off = setting === undefined || /^(off|false|no|0)$/i.test(setting);
  let file: string | undefined;
  if (!off) file = setting === '~' || setting.startsWith('~/') ? path.join(os.homedir(), setting.slice(1)) : path.resolve(setting);
  return Object.freeze({
    file,
    maxBytes: int(env, 'VIGIL_EVE_MAX_MB', 100, 1, 1_048_576) * MIB,
    keep: int(env, 'VIGIL_EVE_KEEP', 5, 0, 1000),
    queueBytes: int(env, 'VIGIL_EVE_QUEUE_MB', 16, 1, 4096) * MIB,
  });
}
