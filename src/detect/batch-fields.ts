/**
 * Decoded fields of a flow batch, shared by the detectors that read them. A column-backed record (native/flow-batch.ts)
 * builds a field anew at each read (its texts are decoded once per batch, the object is not), so two detectors reading
 * `http` of the same flow built it twice; here each flow's `http` is built at its first read in a batch and remembered
 * while the batch lives (as flow-batch.ts `flowColumns` remembers a batch's columns). A detector that tests one or two
 * texts reads them alone through flow-batch.ts `flowTexts`.
 */
import type { FlowHttp, FlowRecord } from '../native/flow-record.js';

/** Each batch's decoded `http` fields, by flow index (undefined: not read yet). */
const httpByBatch = new WeakMap<readonly FlowRecord[], Array<FlowHttp | null | undefined>>();

/** `flows[i].http`, decoded once per batch. Callers must not change the object. */
export function httpOf(flows: readonly FlowRecord[], i: number): FlowHttp | null {
  let fields = httpByBatch.get(flows);
  if (fields === undefined) {
    fields = new Array<FlowHttp | null | undefined>(flows.length);
    httpByBatch.set(flows, fields);
  }
  let http = fields[i];
  if (http === undefined) {
    http = (flows[i] as FlowRecord).http ?? null;
    fields[i] = http;
  }
  return http;
}
