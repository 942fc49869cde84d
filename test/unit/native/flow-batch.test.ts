/**
 * src/native/flow-batch.ts: address and timestamp formatting, batch decoding from a hand-built buffer, and the
 * layout check against the built addon.
 */
import { expect } from 'chai';
import { BATCH_LAYOUT_VERSION, checkLayout, decodeFlowBatch, FLOW_COLUMNS, formatAddress, isoTimestamp } from '../../../src/native/flow-batch.js';
import { loadBinding } from '../../../src/native/load.js';

function addr(bytes: number[]): Uint8Array {
  return Uint8Array.from(bytes);
}

describe('formatAddress()', () => {
  it('prints IPv4-mapped addresses as dotted quads', () => {
    expect(formatAddress(addr([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 10, 50]))).to.equal('192.168.10.50');
  });

  it('prints IPv6 per RFC 5952: lower case, longest zero run as ::, first on ties, no :: for one zero word', () => {
    const v6 = (s: string): Uint8Array => {
      const words = s.split(':').map((w) => parseInt(w, 16));
      return addr(words.flatMap((w) => [w >> 8, w & 0xff]));
    };
    expect(formatAddress(v6('2001:db8:0:0:0:0:0:1'))).to.equal('2001:db8::1');
    expect(formatAddress(v6('fe80:0:0:0:31cb:26de:c5bb:c367'))).to.equal('fe80::31cb:26de:c5bb:c367');
    expect(formatAddress(v6('2001:db8:0:1:1:1:1:1'))).to.equal('2001:db8:0:1:1:1:1:1');
    expect(formatAddress(v6('2001:0:0:1:0:0:0:1'))).to.equal('2001:0:0:1::1');
    expect(formatAddress(v6('2001:db8:0:0:1:0:0:1'))).to.equal('2001:db8::1:0:0:1');
    expect(formatAddress(v6('0:0:0:0:0:0:0:1'))).to.equal('::1');
    expect(formatAddress(v6('0:0:0:0:0:0:0:0'))).to.equal('::');
    expect(formatAddress(v6('ff02:0:0:0:0:0:0:0'))).to.equal('ff02::');
  });

  it('matches a plain words-array formatter and the WHATWG URL serializer on every zero-word pattern and random addresses', () => {
    // Reference: the formatter as first written (an array of words, joined), obviously RFC 5952.
    const reference = (b: Uint8Array): string => {
      if (b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return Array.from(b.subarray(12)).join('.');
      const words = Array.from({ length: 8 }, (_, i) => ((b[2 * i] as number) << 8) | (b[2 * i + 1] as number));
      let best = [-1, 0];
      for (let i = 0; i < 8; ) {
        let j = i;
        while (j < 8 && words[j] === 0) j++;
        if (j - i >= 2 && j - i > (best[1] as number)) best = [i, j - i];
        i = j === i ? i + 1 : j;
      }
      const hex = (ws: number[]): string => ws.map((w) => w.toString(16)).join(':');
      if ((best[0] as number) < 0) return hex(words);
      return `${hex(words.slice(0, best[0]))}::${hex(words.slice((best[0] as number) + (best[1] as number)))}`;
    };
    let seed = 12345;
    const rand = (k: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % k;
    };
    const word = (): number => [0, rand(16), rand(256), rand(4096), rand(65536)][rand(5)] as number;
    const cases: Uint8Array[] = [];
    for (let mask = 0; mask < 256; mask++) {
      for (let r = 0; r < 8; r++) {
        const ws = Array.from({ length: 8 }, (_, i) => ((mask >> i) & 1 ? Math.max(1, word()) : 0));
        cases.push(addr(ws.flatMap((w) => [w >> 8, w & 0xff])));
      }
    }
    for (let r = 0; r < 20000; r++) cases.push(addr(Array.from({ length: 8 }, word).flatMap((w) => [w >> 8, w & 0xff])));
    // IPv4-mapped, and addresses one byte away from it (which are not).
    for (let r = 0; r < 2000; r++) {
      const b = addr([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, rand(256), rand(256), rand(256), rand(256)]);
      cases.push(b);
      const near = b.slice();
      near[rand(12)] ^= 1 << rand(8);
      cases.push(near);
    }
    cases.push(addr([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0]), addr([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 255, 255, 255, 255]));
    let mapped = 0;
    for (const b of cases) {
      const text = formatAddress(b);
      expect(text, Array.from(b).join(',')).to.equal(reference(b));
      if (text.includes('.')) mapped++;
      else expect(`[${text}]`).to.equal(new URL(`http://[${text}]/`).hostname);
      // An offset into a larger buffer reads the same 16 bytes.
      const wide = new Uint8Array(40);
      wide.set(b, 17);
      expect(formatAddress(wide, 17)).to.equal(text);
    }
    expect(mapped).to.be.greaterThan(2000);
  });
});

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
    const flows = decodeFlowBatch(batch(2, (c, i) => values[c]?.[i] ?? 0, addrs), 9);
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
});

describe('checkLayout()', () => {
  it('accepts the built addon and refuses a different layout', () => {
    const addon = loadBinding();
    expect(() => checkLayout(addon)).to.not.throw();
    expect(() => checkLayout({ batchLayoutVersion: 2, flowColumns: addon.flowColumns })).to.throw(/rebuild/);
    expect(() => checkLayout({ batchLayoutVersion: 1, flowColumns: addon.flowColumns.slice(1) })).to.throw(/columns differ/);
  });
});
