/**
 * src/detect/detectors/address.ts: the per-batch address tests and the compact detector keys, against the rules on
 * address text they replace (random IPv4, IPv4-mapped and IPv6 addresses, column batches and plain-record batches).
 */
import { expect } from 'chai';
import { seededRandom } from '../../../helpers/random.js';
import {
  addressesOfPairKey,
  addressKey,
  addressOfKey,
  addressPairKey,
  isGroupAddress,
  isGroupAddressAt,
  isUnspecifiedIpv4At,
} from '../../../../src/detect/detectors/address.js';
import { flowColumns, formatAddress, type FlowColumns } from '../../../../src/native/flow-batch.js';
import { makeFlow } from '../flow-factory.js';

const rnd = seededRandom(12345);

/** A random 16-byte address: mostly IPv4-mapped from a small pool (repeats), some IPv6, some special ones. */
function randomAddress(): number[] {
  const b = new Array<number>(16).fill(0);
  const kind = rnd(10);
  if (kind < 6) {
    b[10] = 0xff;
    b[11] = 0xff;
    const specials = [[0, 0, 0, 0], [224, 0, 0, 251], [10, 0, 0, 255], [255, 255, 255, 255], [239, 1, 2, 3]];
    const v4 = rnd(5) === 0 ? (specials[rnd(specials.length)] as number[]) : [rnd(3) === 0 ? 10 : 200 + rnd(40), rnd(2), rnd(3), rnd(4) * 85];
    b.splice(12, 4, ...v4);
  } else if (kind < 9) {
    b[0] = rnd(2) === 0 ? 0xfe : 0xff;
    b[1] = rnd(2) === 0 ? 0x80 : 0x02;
    b[15] = rnd(4);
    b[7] = rnd(2);
  } else {
    b[15] = rnd(2); // :: and ::1
  }
  return b;
}

/** A hand-built column batch (only the addresses matter here). */
function columnBatch(addresses: number[][]): FlowColumns {
  const n = addresses.length / 2;
  const addrs = Uint8Array.from(addresses.flat());
  return { n, cols: new Float64Array(0), addrs, ip: (k) => formatAddress(addrs, k * 16), firstSeenMs: () => 0, lastSeenMs: () => 0 };
}

describe('detect/detectors/address', () => {
  const addresses = Array.from({ length: 600 }, randomAddress);
  const c = columnBatch(addresses);
  const texts = Array.from({ length: 2 * c.n }, (_, k) => c.ip(k));

  it('isGroupAddressAt() / isUnspecifiedIpv4At() answer as the rules on the address text do', () => {
    let group = 0;
    for (let k = 0; k < 2 * c.n; k++) {
      expect(isGroupAddressAt(c, k), texts[k]).to.equal(isGroupAddress(texts[k] as string));
      expect(isUnspecifiedIpv4At(c, k), texts[k]).to.equal(texts[k] === '0.0.0.0');
      if (isGroupAddressAt(c, k)) group++;
    }
    expect(group).to.be.above(20);
  });

  it('addressKey() / addressPairKey(): equal exactly when the texts and numbers are, and give the texts back', () => {
    const single = new Map<string, string>();
    const pair = new Map<string, string>();
    for (let i = 0; i < c.n; i++) {
      const a = rnd(3);
      const b = [0, 6, 17, 65535][rnd(4)] as number;
      const src = texts[i] as string;
      const dst = texts[c.n + i] as string;
      const k1 = addressKey(c, i, a);
      const k2 = addressPairKey(c, i, c.n + i, a, b);
      expect(addressOfKey(k1)).to.equal(src);
      expect(addressesOfPairKey(k2)).to.deep.equal([src, dst]);
      // One key per distinct (text, numbers), and the reverse.
      const t1 = JSON.stringify([src, a]);
      const t2 = JSON.stringify([src, dst, a, b]);
      expect(single.get(k1) ?? t1).to.equal(t1);
      expect(pair.get(k2) ?? t2).to.equal(t2);
      single.set(k1, t1);
      pair.set(k2, t2);
    }
    expect(new Set(single.values()).size).to.equal(single.size);
    expect(new Set(pair.values()).size).to.equal(pair.size);
    expect(single.size).to.be.below(c.n); // the pool repeats addresses
  });

  it('a batch of plain records keys its addresses as the column batch with the same texts does', () => {
    const flows = Array.from({ length: c.n }, (_, i) => makeFlow({ srcIp: texts[i], dstIp: texts[c.n + i] }));
    const p = flowColumns(flows);
    for (let i = 0; i < c.n; i++) {
      expect(addressPairKey(p, i, p.n + i, 80, 6)).to.equal(addressPairKey(c, i, c.n + i, 80, 6));
      expect(addressKey(p, p.n + i, 17)).to.equal(addressKey(c, c.n + i, 17));
      expect(isGroupAddressAt(p, p.n + i)).to.equal(isGroupAddressAt(c, c.n + i));
    }
    // Text that is not a canonical dotted quad keeps its own identity.
    const odd = flowColumns([makeFlow({ srcIp: '010.0.0.1', dstIp: '10.0.0.1' })]);
    expect(addressKey(odd, 0)).to.not.equal(addressKey(odd, 1));
    expect(addressOfKey(addressKey(odd, 0))).to.equal('010.0.0.1');
  });
});
