/**
 * `vigil replay` and `vigil interfaces` as a user runs them (`node bin/vigil.js ...` in a child process).
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FlowRecord, SensorStats } from '../../src/native/types.js';
import { FIXTURES, ROOT } from '../helpers/setup.js';

const run = promisify(execFile);
const VIGIL = path.join(ROOT, 'bin', 'vigil.js');
const SQLI = path.join(FIXTURES, 'pcaps', 'ndpi_cicids2017_webattack_sqli.pcap');

async function vigil(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [VIGIL, ...args], { cwd: ROOT, maxBuffer: 1 << 26 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('vigil replay', function () {
  this.timeout(60000);

  it('--json prints one object per finished flow with every feature, then a summary line with all counters', async () => {
    const { code, stdout } = await vigil('replay', SQLI, '--json');
    expect(code).to.equal(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).to.have.length(10);
    const flows = lines.slice(0, 9) as unknown as FlowRecord[];
    for (const f of flows) {
      for (const k of ['srcIp', 'srcPort', 'dstIp', 'dstPort', 'protocol', 'firstSeen', 'lastSeen', 'packets', 'bytes', 'iatStdUs', 'earlySizes']) {
        expect(f, k).to.have.property(k);
      }
      expect(f.firstSeen).to.match(/^2017-07-06T13:\d\d:\d\d\.\d{6}Z$/);
    }
    const summary = lines[9].summary as SensorStats & { file: string };
    expect(summary.file).to.equal(SQLI);
    expect(summary.packets).to.equal(94);
    expect(summary.bytes).to.equal(30008);
    expect(summary.flows).to.equal(9);
    expect(summary.decodeErrors).to.include({ truncated_ip: 0, bad_udp_length: 0 });
    expect(summary.protocols.tcp).to.deep.equal({ packets: 94, bytes: 30008, flows: 9 });
  });

  it('--summary-only prints just the summary line, with decode error counters', async () => {
    const { code, stdout } = await vigil('replay', path.join(FIXTURES, 'pcaps', 'zeek_ipv6_fragment_header_dns.pcap'), '--summary-only');
    expect(code).to.equal(0);
    const lines = stdout.trim().split('\n');
    expect(lines).to.have.length(1);
    const { summary } = JSON.parse(lines[0]) as { summary: SensorStats };
    expect(summary.packets).to.equal(8);
    expect(summary.flows).to.equal(2);
    expect(summary.decodeErrors.fragment_no_flow).to.equal(1);
  });

  it('prints a readable summary: protocols, top flows, error counters', async () => {
    const { code, stdout } = await vigil('replay', path.join(FIXTURES, 'pcaps', 'zeek_vlan_collisions_same_5tuple.pcap'), '--top', '3');
    expect(code).to.equal(0);
    expect(stdout).to.contain('packets 42').and.contain('flows 3');
    expect(stdout).to.match(/tcp\s+42\s+\d+\s+3/);
    expect(stdout).to.contain('141.142.228.5:59856 -> 192.150.187.43:80 vlan 42');
    expect(stdout).to.contain('vlan 10/20');
    expect(stdout).to.contain('decode errors: none');
  });

  it('--json carries the application layer: label, server name, HTTP, DNS, SSH, Community ID, and ARP binding lines', async () => {
    const own = path.join(FIXTURES, 'pcaps', 'own', 'vigil_loopback_app_mix.pcap');
    const { code, stdout } = await vigil('replay', own, '--json');
    expect(code).to.equal(0);
    const flows = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as FlowRecord & { summary?: SensorStats & { appLayer: { flowsByApp: Record<string, number> } } });
    const http = flows.find((f) => f.http?.host === 'site0.example.test')!;
    expect(http).to.deep.include({ app: 'http', appBy: 'content', serverName: 'site0.example.test', serverNameSource: 'http_host' });
    expect(http.http).to.deep.equal({
      method: 'GET',
      host: 'site0.example.test',
      uri: '/',
      userAgent: 'vigil-fixture/1.0 (+loopback)',
      status: 200,
      requests: 5,
      // tshark: no http.content_type, http.file_data "ok" (a body of no known type).
      contentType: null,
      bodyMagic: 'other',
    });
    expect(http.communityId).to.match(/^1:[A-Za-z0-9+/]{27}=$/);
    const dns = flows.find((f) => f.dns?.query === 'api.cdn.test' && f.dns.qtype === 1)!;
    expect(dns.dns).to.deep.equal({
      query: 'api.cdn.test',
      qtype: 1,
      rcode: 0,
      answers: [
        { type: 'CNAME', ttl: 300, value: 'edge.api.cdn.test' },
        { type: 'A', ttl: 60, value: '127.0.0.13' },
      ],
    });
    expect(flows.find((f) => f.dns?.query === 'nothing.nx.test')!.dns!.rcode).to.equal(3);
    expect(flows.filter((f) => f.ssh).map((f) => f.ssh!.client)).to.have.members(['SSH-2.0-libssh_0.9.6', 'SSH-2.0-PuTTY_Release_0.78', 'SSH-2.0-Go']);
    const tls = flows.find((f) => f.tls?.sni === 'secure.example.test')!;
    expect(tls).to.deep.include({ app: 'tls', serverName: 'secure.example.test', serverNameSource: 'sni' });
    expect(tls.tls).to.include({ version: 'TLS 1.3', alpn: 'h2' });
    expect(tls.tls!.ja3).to.match(/^[0-9a-f]{32}$/);
    expect(tls.tls!.ja4).to.match(/^t13d\d{4}h2_[0-9a-f]{12}_[0-9a-f]{12}$/);
    // A keep-alive connection of 15 requests: every one is counted, past the parsers' 12-packet budget.
    expect(flows.find((f) => f.http?.host === 'poll.example.test')!.http!.requests).to.equal(15);
    expect(flows.at(-1)!.summary!.appLayer.flowsByApp).to.deep.equal({ dns: 14, tls: 12, http: 5, ssh: 3 });
    // A replay carries no process (per-process attribution is for live capture): every flow line says so.
    const flowLines = flows.filter((f) => f.summary === undefined && 'srcIp' in f);
    expect(flowLines.length).to.be.greaterThan(30);
    for (const f of flowLines) expect(f).to.have.property('process', null);

    // ARP: one line per (IP, MAC) binding with its totals, before the summary.
    const lan = await vigil('replay', path.join(FIXTURES, 'pcaps', 'sv_eth_lan_dns_icmp_icmpv6_smb.pcap'), '--json');
    const arp = lan.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { arp?: Record<string, unknown> })
      .filter((l) => l.arp !== undefined)
      .map((l) => l.arp!);
    expect(arp).to.have.length(7);
    expect(arp).to.deep.include({
      senderMac: '00:0c:29:03:df:ad',
      senderIp: '0.0.0.0',
      targetIp: '192.168.199.132',
      requests: 11,
      replies: 0,
      targetRuns: 4,
      newTargets: 2,
      gratuitous: 0,
      firstSeen: '2016-10-16T08:10:26.613220Z',
      lastSeen: '2016-10-16T08:11:40.965529Z',
    });
  });

  it('VIGIL_CAPTURE_APP_LAYER=off leaves every application-layer field null', async () => {
    const own = path.join(FIXTURES, 'pcaps', 'own', 'vigil_loopback_app_mix.pcap');
    const { stdout } = await run(process.execPath, [VIGIL, 'replay', own, '--json'], { cwd: ROOT, env: { ...process.env, VIGIL_CAPTURE_APP_LAYER: 'off' } });
    const lines = stdout.trim().split('\n');
    const flows = lines.slice(0, -1).map((l) => JSON.parse(l) as FlowRecord);
    expect(flows).to.have.length(34);
    for (const f of flows) {
      expect([f.app, f.appBy, f.serverName, f.serverNameSource, f.dns, f.tls, f.http, f.ssh, f.dhcp, f.communityId]).to.deep.equal(Array(10).fill(null));
    }
  });

  it('exits non-zero with one clear message on stderr when the file cannot be read', async () => {
    const { code, stdout, stderr } = await vigil('replay', '/nonexistent/capture.pcap');
    expect(code).to.equal(1);
    expect(stdout).to.equal('');
    expect(stderr.trim().split('\n')).to.have.length(1);
    expect(stderr).to.contain('vigil replay: cannot read capture file /nonexistent/capture.pcap');
  });

  it('exits 2 with usage on bad arguments', async () => {
    const { code, stderr } = await vigil('replay');
    expect(code).to.equal(2);
    expect(stderr).to.contain('usage: vigil replay FILE');
  });
});

describe('vigil interfaces', function () {
  this.timeout(60000);

  it('--json lists the devices, including a loopback', async () => {
    const { code, stdout } = await vigil('interfaces', '--json');
    expect(code).to.equal(0);
    const devices = JSON.parse(stdout) as { name: string; loopback: boolean }[];
    expect(devices.some((d) => d.loopback)).to.equal(true);
  });
});
