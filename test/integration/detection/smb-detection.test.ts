/**
 * Lateral movement and Zerologon from replayed captures through the live path (Sensor -> SensorPipeline -> engine ->
 * SQLite file), the model off so the rules alone are judged. own/vigil_smb_psexec.pcap and
 * own/vigil_dcerpc_zerologon.pcap are built by own/make-smb-captures.ts; the LAN and loopback captures carry ordinary
 * SMB2.
 */
import { expect } from 'chai';
import type { AlertRow } from '../../../src/store/tables/alert.table.js';
import { replayCapture } from './replay-helper.js';

const details = (a: AlertRow): Record<string, unknown> => JSON.parse(a.details) as Record<string, unknown>;

describe('detection: SMB2 and DCE-RPC from replayed captures', function () {
  this.timeout(60_000);

  it('own/vigil_smb_psexec.pcap -> one critical lateral_movement alert from 192.168.10.31 to 192.168.10.10', async () => {
    const r = await replayCapture('own/vigil_smb_psexec.pcap', { model: null });
    expect(r.alerts.map((a) => [a.category, a.severity])).to.deep.equal([['lateral_movement', 'critical']]);
    const a = r.alerts[0]!;
    // Two sessions folded: the push to ADMIN$ (high), then the service calls on the second session (critical).
    expect(a).to.include({ src_ip: '192.168.10.31', dst_ip: '192.168.10.10', source: 'rule', count: 2 });
    const d = details(a);
    expect(d.executionOperations).to.deep.equal(['svcctl::CreateServiceWOW64W', 'svcctl::StartServiceW']);
    expect(d).to.deep.include({ pushAndExecution: true });
    expect(r.alerts.filter((x) => x.category === 'brute_force')).to.deep.equal([]);
  });

  it('the same capture with VIGIL_DETECT_LATERAL=off -> nothing', async () => {
    const r = await replayCapture('own/vigil_smb_psexec.pcap', { model: null, env: { VIGIL_DETECT_LATERAL: 'off' } });
    expect(r.alerts).to.deep.equal([]);
  });

  it('own/vigil_dcerpc_zerologon.pcap -> exploit (Zerologon), no brute_force', async () => {
    const r = await replayCapture('own/vigil_dcerpc_zerologon.pcap', { model: null });
    expect(r.alerts.map((a) => [a.category, a.severity])).to.deep.equal([['exploit', 'high']]);
    expect(r.alerts[0]).to.include({ src_ip: '172.16.0.10', dst_ip: '172.16.5.58' });
    expect(details(r.alerts[0]!)).to.deep.include({ detector: 'zerologon', cve: 'CVE-2020-1472', clients: ['172.16.0.10'], threshold: 20 });
  });

  for (const benign of ['sv_eth_lan_dns_icmp_icmpv6_smb.pcap', 'sv_null_loopback_smb.pcap']) {
    it(`${benign} (ordinary SMB2) -> no lateral_movement and no exploit`, async () => {
      const r = await replayCapture(benign, { model: null });
      expect(r.alerts.filter((a) => a.category === 'lateral_movement' || a.category === 'exploit')).to.deep.equal([]);
    });
  }
});
