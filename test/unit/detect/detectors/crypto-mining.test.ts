import { expect } from 'chai';
import { CryptoMiningDetector } from '../../../../src/detect/detectors/crypto-mining.js';
import { makeFlow } from '../flow-factory.js';

const T0 = 1_700_000_000_000;

describe('detect/detectors/crypto-mining', () => {
  it('reports a Stratum connection once, at its first snapshot: the private end mines, the pool is the threat', () => {
    const d = new CryptoMiningDetector(100);
    const session = {
      id: 7,
      firstSeenMs: T0,
      srcIp: '192.168.2.148',
      srcPort: 51514,
      dstIp: '94.23.199.191',
      dstPort: 3333,
      app: 'stratum',
      appBy: 'content',
    } as const;
    const first = d.observe([makeFlow({ ...session, endReason: 'snapshot', lastSeenMs: T0 + 10_000 })]);
    expect(first).to.have.length(1);
    expect(first[0]).to.deep.include({
      category: 'malware',
      severity: 'medium',
      srcIp: '192.168.2.148',
      dstIp: '94.23.199.191',
      dstPort: 3333,
      threatIp: '94.23.199.191',
    });
    expect(first[0]!.details).to.deep.include({ kind: 'crypto_mining', pool: '94.23.199.191:3333' });
    // Later snapshots and the end of the same connection add nothing; a new connection is reported again.
    expect(d.observe([makeFlow({ ...session, endReason: 'snapshot', lastSeenMs: T0 + 20_000 })])).to.deep.equal([]);
    expect(d.observe([makeFlow({ ...session, endReason: 'fin', lastSeenMs: T0 + 30_000 })])).to.deep.equal([]);
    expect(d.observe([makeFlow({ ...session, id: 8, firstSeenMs: T0 + 40_000, lastSeenMs: T0 + 41_000 })])).to.have.length(1);
  });

  it('names the miner when the capture began with the pool talking (both ends global: the higher port is the client)', () => {
    const out = new CryptoMiningDetector(100).observe([
      makeFlow({ srcIp: '185.71.66.39', srcPort: 9999, dstIp: '147.229.13.222', dstPort: 53846, app: 'stratum', appBy: 'content' }),
    ]);
    expect(out[0]).to.deep.include({ srcIp: '147.229.13.222', dstIp: '185.71.66.39', dstPort: 9999 });
  });

  it('ignores a port guess and other applications', () => {
    const d = new CryptoMiningDetector(100);
    expect(d.observe([makeFlow({ dstPort: 3333, app: 'stratum', appBy: 'port' }), makeFlow({ dstPort: 3333, app: 'http', appBy: 'content' })])).to.deep.equal(
      [],
    );
  });
});
