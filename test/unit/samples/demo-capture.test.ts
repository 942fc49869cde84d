/**
 * samples/demo.pcap is what samples/make-demo-capture.mjs makes from the committed fixtures (byte for byte), and what
 * the recipe says it is: the browsing capture with a scan, a brute force and a beacon from public stand-in addresses
 * aimed at the browsing machine, every checksum right.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { replayFile } from '../../../src/native/capture.js';
import { ROOT } from '../../helpers/setup.js';

const run = promisify(execFile);
const DEMO = path.join(ROOT, 'samples', 'demo.pcap');

describe('samples/demo.pcap', function () {
  this.timeout(60_000);

  it('is what the recipe makes from the committed captures', async () => {
    const { stdout } = await run(process.execPath, ['samples/make-demo-capture.mjs', '--check'], { cwd: ROOT });
    expect(stdout).to.include('is up to date');
  });

  it('holds the browsing and the three attacks against 192.168.100.206, and decodes without an error', async () => {
    const { flows, stats } = await replayFile(DEMO);
    expect(stats.packets).to.equal(6129); // 3138 browsing + 2011 scan + 431 SSH guessing + 549 beacon
    expect(Object.values(stats.decodeErrors).reduce((a, b) => a + b, 0)).to.equal(0);
    const peers = (ip: string): number => flows.filter((f) => f.srcIp === ip || f.dstIp === ip).length;
    const toDesktop = (ip: string): boolean => flows.filter((f) => f.srcIp === ip || f.dstIp === ip).every((f) => f.srcIp === '192.168.100.206' || f.dstIp === '192.168.100.206');
    for (const ip of ['64.13.134.52', '185.220.101.34', '139.59.1.10']) expect(toDesktop(ip), ip).to.equal(true);
    expect(peers('64.13.134.52')).to.be.greaterThan(900); // one flow per probed port
    expect(flows.filter((f) => f.dstIp === '192.168.100.206' && f.dstPort === 22 && f.srcIp === '185.220.101.34').length).to.be.at.least(10);
    const beacon = flows.filter((f) => f.dstIp === '139.59.1.10' && f.dstPort === 443);
    expect(beacon.length).to.equal(36);
    expect(new Set(beacon.map((f) => f.serverName))).to.deep.equal(new Set(['updates.c2-example.net']));
    // Nothing of the labs' own addresses is left.
    for (const lab of ['172.16.0.8', '192.168.56.1', '192.168.56.103', '127.0.0.1']) expect(peers(lab), lab).to.equal(0);
  });

  it('has no bad IPv4, TCP or UDP checksum (tshark)', async function () {
    const { stdout } = await run('tshark', [
      '-r',
      DEMO,
      '-o',
      'ip.check_checksum:TRUE',
      '-o',
      'tcp.check_checksum:TRUE',
      '-o',
      'udp.check_checksum:TRUE',
      '-Y',
      'ip.checksum.status == 0 || tcp.checksum.status == 0 || udp.checksum.status == 0',
      '-T',
      'fields',
      '-e',
      'frame.number',
    ]);
    expect(stdout.trim()).to.equal('');
  });
});
