/**
 * Column-backed flow records (`columnFlows`, src/native/flow-batch.ts `columnFlowRecords`) against the plain records of
 * the `flows` event: same batches, same fields, same values, same key order, on real captures (IPv4/IPv6, ns
 * timestamps, snapshots).
 */
import { expect } from 'chai';
import path from 'node:path';
import { createSensor, type CaptureTuning } from '../../src/native/capture.js';
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
        for (const key of Object.keys(a)) expect((b as unknown as Record<string, unknown>)[key], `${i}.${key}`).to.deep.equal((a as unknown as Record<string, unknown>)[key]);
        expect(JSON.stringify(b)).to.equal(JSON.stringify(a));
        expect(b).to.deep.equal(a);
      }
    });
  }

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
