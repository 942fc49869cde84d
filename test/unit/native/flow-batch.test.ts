/**
 * src/native/flow-batch.ts: timestamp formatting, batch decoding from a hand-built buffer, and the
 * layout check against the built addon.
 */
import { expect } from 'chai';
import { columnFlowRecords, decodeFlowBatch, isoTimestamp, shiftFlowTimes } from '../../../src/native/flow-batch.js';
import { BATCH_LAYOUT_VERSION, checkLayout, FLOW_COLUMNS } from '../../../src/native/flow-columns.js';
import { loadBinding } from '../../../src/native/load.js';

describe('isoTimestamp()', () => {
  it('keeps microseconds (6 digits) or nanoseconds (9 digits)', () => {
    expect(isoTimestamp(1499348407, 419016000, 6)).to.equal('2017-07-06T13:40:07.419016Z');
    expect(isoTimestamp(1499348407, 419016123, 9)).to.equal('2017-07-06T13:40:07.419016123Z');
    expect(isoTimestamp(0, 5, 9)).to.equal('1970-01-01T00:00:00.000000005Z');
  });
});

describe('decodeFlowBatch()', () => {
  function batch(n: number, set: (col: string, i: number) => number, addrs: Uint8Array): ArrayBuffer {
    const ncols = FLOW_COLUMNS.length;
    const buf = new ArrayBuffer(16 + n * ncols * 8 + n * 32);
    new Uint32Array(buf, 0, 4).set([BATCH_LAYOUT_VERSION, n, ncols, 0]);
    const cols = new Float64Array(buf, 16, n * ncols);
    FLOW_COLUMNS.forEach((name, c) => {
      for (let i = 0; i < n; i++) cols[c * n + i] = set(name, i);
    });
    new Uint8Array(buf, 16 + n * ncols * 8).set(addrs);
    return buf;
  }

  it('turns columns into FlowRecords (addresses, times, end reason, early arrays)', () => {
    const values: Record<string, number[]> = {
      id: [7, 8],
      srcPort: [36196, 8],
      dstPort: [80, 0],
      protocol: [6, 58],
      ipVersion: [4, 6],
      firstSec: [1499348407, 1],
      firstNsec: [419016000, 500],
      lastSec: [1499348412, 2],
      lastNsec: [425928000, 0],
      durationUs: [5006912, 999999.5],
      endReason: [2, 6],
      packets: [11, 1],
      earlyCount: [2, 1],
      earlySize0: [60, 104],
      earlySize1: [60, 0],
      earlyDir1: [1, 0],
      earlyIatUs1: [131, 0],
    };
    const addrs = new Uint8Array(64);
    addrs.set([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 172, 16, 0, 1], 0); // src 0
    addrs[16] = 0xfe; // src 1: fe80::1
    addrs[17] = 0x80;
    addrs[31] = 1;
    addrs.set([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 10, 50], 32); // dst 0
    addrs[48] = 0xff; // dst 1: ff02::1
    addrs[49] = 0x02;
    addrs[63] = 1;
    const flows = decodeFlowBatch(
      batch(2, (c, i) => values[c]?.[i] ?? 0, addrs),
      9,
    );
    expect(flows).to.have.length(2);
    const [a, b] = flows;
    expect([a.id, a.srcIp, a.srcPort, a.dstIp, a.dstPort, a.protocol, a.ipVersion]).to.deep.equal([7, '172.16.0.1', 36196, '192.168.10.50', 80, 6, 4]);
    expect(a.firstSeen).to.equal('2017-07-06T13:40:07.419016000Z');
    expect(a.firstSeenMs).to.equal(1499348407419.016);
    expect(a.endReason).to.equal('fin');
    expect(a.earlySizes).to.deep.equal([60, 60]);
    expect(a.earlyDirections).to.deep.equal([0, 1]);
    expect(a.earlyIatUs).to.deep.equal([0, 131]);
    expect([b.srcIp, b.dstIp, b.ipVersion, b.endReason, b.durationUs]).to.deep.equal(['fe80::1', 'ff02::1', 6, 'snapshot', 999999.5]);
  });

  it('rejects buffers that do not match their header', () => {
    const good = batch(1, () => 0, new Uint8Array(32));
    expect(() => decodeFlowBatch(good.slice(0, good.byteLength - 1))).to.throw(RangeError);
    const wrongVersion = good.slice(0);
    new Uint32Array(wrongVersion, 0, 1)[0] = 99;
    expect(() => decodeFlowBatch(wrongVersion)).to.throw(RangeError, /layout 99/);
    expect(() => decodeFlowBatch(new ArrayBuffer(4))).to.throw(RangeError);
  });

  it('shiftFlowTimes() moves every flow on by whole seconds in place and returns the span before the shift', () => {
    const times: Record<string, number[]> = { firstSec: [100, 90], firstNsec: [5, 250_000_000], lastSec: [130, 95], lastNsec: [7, 0] };
    const buf = batch(2, (col, i) => times[col]?.[i] ?? 0, new Uint8Array(64));
    expect(shiftFlowTimes(buf, 25)).to.deep.equal({ firstMs: 90_250, lastMs: 130_000.000007 });
    const [a, b] = columnFlowRecords(buf);
    expect([a.firstSeen, a.lastSeen, b.firstSeen, b.lastSeen]).to.deep.equal([
      '1970-01-01T00:02:05.000000Z',
      '1970-01-01T00:02:35.000000Z',
      '1970-01-01T00:01:55.250000Z',
      '1970-01-01T00:02:00.000000Z',
    ]);
    expect(decodeFlowBatch(buf, 9)[0]!.firstSeen).to.equal('1970-01-01T00:02:05.000000005Z');
    expect(shiftFlowTimes(buf, 0)).to.deep.equal({ firstMs: 115_250, lastMs: 155_000.000007 }); // 0: nothing moves
    expect(
      shiftFlowTimes(
        batch(0, () => 0, new Uint8Array(0)),
        5,
      ),
    ).to.equal(null);
    expect(() => shiftFlowTimes(buf, 1.5)).to.throw(RangeError, 'offsetSec must be a non-negative whole number, got 1.5');
    expect(() => shiftFlowTimes(buf, -1)).to.throw(RangeError);
  });
});

describe('checkLayout()', () => {
  it('accepts the built addon and refuses a different layout', () => {
    const addon = loadBinding();
    expect(() => checkLayout(addon)).to.not.throw();
    expect(() => checkLayout({ batchLayoutVersion: 2, flowColumns: addon.flowColumns })).to.throw(/rebuild/);
    expect(() => checkLayout({ batchLayoutVersion: 1, flowColumns: addon.flowColumns.slice(1) })).to.throw(/columns differ/);
  });
});
