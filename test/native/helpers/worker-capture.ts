/** Worker body for the exit test: starts a paced (slow) replay of `workerData` and reports once it runs. */
import { parentPort, workerData } from 'node:worker_threads';
import { createSensor } from '../../../src/native/capture.js';

const sensor = createSensor();
await sensor.start({ kind: 'file', path: workerData as string, speed: 1 });
parentPort?.postMessage('started');
