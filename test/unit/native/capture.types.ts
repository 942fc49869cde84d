/**
 * Compile-time checks of the typed capture API (like sharp's `test/types/`): `npm run typecheck` fails when the
 * public types drift. Nothing here runs.
 */
import type { Binding } from '../../../binding.js';
import { type CaptureSensor, type CaptureStats, createSensor, listInterfaces, replayFile, type ReplayResult } from '../../../src/native/capture.js';
import type { CaptureErrorCode } from '../../../src/native/errors.js';
import type { FlowRecord, Sensor, SensorStats } from '../../../src/native/types.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): T | undefined {
  return undefined;
}

export async function typeChecks(): Promise<void> {
  const sensor: Sensor = createSensor(); // the contract of src/native/types.ts
  const typed: CaptureSensor = createSensor();
  assertType<Equal<ReturnType<CaptureSensor['stats']>, CaptureStats>>();
  assertType<Equal<Awaited<ReturnType<typeof replayFile>>, ReplayResult>>();
  const stats: SensorStats = typed.stats(); // CaptureStats is a SensorStats
  void stats;
  sensor.on('flows', (flows) => {
    const f: FlowRecord = flows[0];
    const n: number = f.packets;
    void n;
  });
  // @ts-expect-error unknown event name
  sensor.on('packets', () => undefined);
  // @ts-expect-error a file source needs a path
  await sensor.start({ kind: 'file' });
  // @ts-expect-error flows carry numbers, not strings
  const bad: string = (await replayFile('x.pcap')).flows[0].bytes;
  void bad;
  const devices: Binding.Device[] = listInterfaces();
  void devices;
  const code: CaptureErrorCode = 'capture_file_corrupt';
  // @ts-expect-error codes are a closed set
  const wrong: CaptureErrorCode = 'capture_oops';
  void code;
  void wrong;
}
