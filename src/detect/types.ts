/**
 * Contract between detection and the rest: the sensor pipeline feeds it flow batches, the desktop API reads ML
 * statistics through it.
 */
import type { ArpBinding } from '../native/capture.js';
import type { FlowRecord } from '../native/flow-record.js';
import type { MlStats } from '../ml/types.js';

/** What the pipeline calls for every flow batch; resolves when the batch has been scored, detected and stored. */
export interface DetectionEngine {
  ingest(flows: FlowRecord[]): Promise<void>;
  /** Judges a batch of ARP bindings (the sensor's `arp` event); resolves when its alerts are stored. */
  ingestArp(bindings: readonly ArpBinding[]): Promise<void>;
  /** Counts `flowCount` delivered flows the caller could not hand to `ingest` (reported as `skipped`). */
  skip(flowCount: number): void;
  mlStats(): MlStats;
  close(): Promise<void>;
}
