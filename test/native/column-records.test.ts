/**
 * Column-backed flow records (`columnFlows`, src/native/flow-batch.ts `columnFlowRecords`) against the plain records of
 * the `flows` event: same batches, same fields, same values, same key order, on real captures (IPv4/IPv6, ns
 * timestamps, snapshots).
 */
import { expect } from 'chai';
import path from 'node:path';
import { FeatureMatrixBuilder, CANONICAL_FEATURES } from '../../src/ml/features.js';
import { createSensor, type CaptureTuning } from '../../src/native/capture.js';
import { flowColumns, flowTexts } from '../../src/native/flow-batch.js';
import { FLOW_COLUMN, FLOW_COLUMNS, TEXT_COLUMNS } from '../../src/native/flow-columns.js';
import type { FlowRecord } from '../../src/native/types.js';
import { FIXTURES } from '../helpers/setup.js';

async function both(file: string, tuning: CaptureTuning = {}): Promise<{ plain: FlowRecord[][]; columns: FlowRecord[][] }> {
  const sensor = createSensor();
  const plain: FlowRecord[][] = [];
  const columns: FlowRecord[][] = [];
  sensor.on('columnFlows', (b) => columns.push(b));
  sensor.on('flows', (b) => plain.push(b));
  const ended = new Promise<void>((resolve) => sensor.on('end', () => resolve()));
  await sensor.start({ kind: 'file', path: path.join(FIXTURES, 'pcaps', file) }, tuning);
  await ended;
  return { plain, columns };
}

describe('native: column-backed flow records', () => {
  for (const [file, tuning] of [
    ['sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap', {}],
    ['zeek_pcapng_two_interfaces.pcapng', {}],
    ['zeek_ssh_password_guessing.pcap', { snapshotIntervalSec: 1, batchFlows: 7 }],
  ] as Array<[string, CaptureTuning]>) {
    it(`equal the plain records of ${file}, field by field and as JSON`, async () => {
      const { plain, columns } = await both(file, tuning);
      expect(columns.map((b) => b.length)).to.deep.equal(plain.map((b) => b.length));
      const p = plain.flat();
      const c = columns.flat();
      expect(c.length).to.be.above(0);
      for (let i = 0; i < p.length; i++) {
        const a = p[i] as FlowRecord;
        const b = c[i] as FlowRecord;
        for (const key of Object.keys(a))
          expect((b as unknown as Record<string, unknown>)[key], `${i}.${key}`).to.deep.equal((a as unknown as Record<string, unknown>)[key]);
        expect(JSON.stringify(b)).to.equal(JSON.stringify(a));
        expect(b).to.deep.equal(a);
      }
    });
  }

  it('flowColumns(): a column batch and the same plain batch give the same columns, texts, times and feature matrix', async () => {
    const { plain, columns } = await both('sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap', { batchFlows: 16 });
    const numeric = FLOW_COLUMNS.filter((name) => !/^(first|last)(N?sec)$|^early/i.test(name));
    let v6 = 0;
    for (let b = 0; b < plain.length; b++) {
      const p = plain[b] as FlowRecord[];
      const cv = flowColumns(columns[b] as FlowRecord[]);
      const pv = flowColumns(p);
      expect(flowColumns(p)).to.equal(pv); // built once per array
      expect([cv.n, pv.n]).to.deep.equal([p.length, p.length]);
      for (let i = 0; i < p.length; i++) {
        const f = p[i] as FlowRecord;
        for (const name of numeric) {
          const c = FLOW_COLUMN[name as keyof typeof FLOW_COLUMN];
          expect(pv.cols[c * pv.n + i], `${b}.${i}.${name}`).to.equal(cv.cols[c * cv.n + i]);
        }
        expect([cv.ip(i), cv.ip(cv.n + i), cv.firstSeenMs(i), cv.lastSeenMs(i)]).to.deep.equal([f.srcIp, f.dstIp, f.firstSeenMs, f.lastSeenMs]);
        expect([pv.ip(i), pv.ip(pv.n + i), pv.firstSeenMs(i), pv.lastSeenMs(i)]).to.deep.equal([f.srcIp, f.dstIp, f.firstSeenMs, f.lastSeenMs]);
        // IPv4 addresses are in both address arrays; plain batches leave IPv6 ones zero.
        const src = Array.from(cv.addrs.subarray(i * 16, i * 16 + 16));
        if (f.ipVersion === 4) expect(Array.from(pv.addrs.subarray(i * 16, i * 16 + 16))).to.deep.equal(src);
        else v6++;
      }
      const m1 = new FeatureMatrixBuilder(CANONICAL_FEATURES).build(columns[b] as FlowRecord[]).slice();
      const m2 = new FeatureMatrixBuilder(CANONICAL_FEATURES).build(p).slice();
      expect(Array.from(m1)).to.deep.equal(Array.from(m2));
    }
    expect(v6).to.be.above(0);
  });

  it('flowTexts(): a column batch and the same plain batch give the same texts, tests and comparisons', async () => {
    const { plain, columns } = await both('sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap', { batchFlows: 16 });
    const seen = new Set<string>();
    for (let b = 0; b < plain.length; b++) {
      const p = plain[b] as FlowRecord[];
      const ct = flowTexts(columns[b] as FlowRecord[]);
      const pt = flowTexts(p);
      expect(flowTexts(columns[b] as FlowRecord[])).to.equal(flowColumns(columns[b] as FlowRecord[])); // one view per batch
      for (let i = 0; i < p.length; i++) {
        TEXT_COLUMNS.forEach((name, c) => {
          const v = ct.text(c, i);
          expect(pt.text(c, i), `${b}.${i}.${name}`).to.equal(v);
          expect([ct.hasText(c, i), pt.hasText(c, i)], `${b}.${i}.${name}`).to.deep.equal([v !== null, v !== null]);
          expect(ct.textIs(c, i, ''), `${b}.${i}.${name}`).to.equal(false);
          if (v === null) return;
          seen.add(name);
          expect([ct.textIs(c, i, v), pt.textIs(c, i, v)], `${b}.${i}.${name}`).to.deep.equal([true, true]);
          for (const other of [`${v}x`, v.slice(0, -1), `${v.startsWith('x') ? 'y' : 'x'}${v.slice(1)}`])
            expect(ct.textIs(c, i, other), `${b}.${i}.${name} ${other}`).to.equal(false);
        });
      }
    }
    // The capture has names, DNS (questions and answers), TLS and HTTP texts.
    expect([...seen]).to.include.members(['serverName', 'dnsQuery', 'dnsAnswers', 'tlsSni', 'httpUri', 'communityId']);
  });

  it('stay readable after their batch callback returned, also for a listener added after start()', async () => {
    const sensor = createSensor();
    const late: FlowRecord[][] = [];
    const plain: FlowRecord[][] = [];
    sensor.on('flows', (b) => plain.push(b));
    const ended = new Promise<void>((resolve) => sensor.on('end', () => resolve()));
    await sensor.start({ kind: 'file', path: path.join(FIXTURES, 'pcaps', 'ndpi_nmap_syn_portscan.pcap') }, { batchFlows: 64 });
    sensor.on('columnFlows', (b) => late.push(b));
    await ended;
    const c = late.flat();
    expect(c.length).to.be.above(0);
    const p = plain.flat().slice(-c.length);
    expect(c.map((r) => JSON.stringify(r))).to.deep.equal(p.map((r) => JSON.stringify(r)));
  });
});
