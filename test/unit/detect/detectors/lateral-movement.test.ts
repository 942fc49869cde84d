import { expect } from 'chai';
import { loadDetectionConfig } from '../../../../src/config/detection.js';
import { BruteForceDetector } from '../../../../src/detect/detectors/brute-force.js';
import { fileExtension, isAdminShare, LateralMovementDetector } from '../../../../src/detect/detectors/lateral-movement.js';
import { ZerologonDetector } from '../../../../src/detect/detectors/zerologon.js';
import type { FlowDcerpcOp, FlowRecord, FlowSmbFile } from '../../../../src/native/flow-record.js';
import { makeFlow } from '../flow-factory.js';

const T0 = 1_700_000_000_000;
const config = loadDetectionConfig({});
const file = (name: string, share: string, over: Partial<FlowSmbFile> = {}): FlowSmbFile => ({
  name,
  share,
  write: false,
  written: false,
  read: false,
  pipe: false,
  ...over,
});
const op = (iface: string, opnum: number, name: string | null, count = 1): FlowDcerpcOp => ({ iface, opnum, name, count });

function smbFlow(files: FlowSmbFile[], ops: FlowDcerpcOp[] = [], over: Partial<FlowRecord> = {}): FlowRecord {
  return makeFlow({
    srcIp: '192.168.10.31',
    dstIp: '192.168.10.10',
    dstPort: 445,
    app: 'smb',
    appBy: 'content',
    smb: { shares: [...new Set(files.map((f) => f.share as string))], files, requests: 10, trees: 1, creates: files.length, writes: 1, reads: 0 },
    dcerpc: ops.length > 0 ? { interfaces: [...new Set(ops.map((o) => o.iface as string))], ops, binds: 1, requests: ops.length } : null,
    ...over,
  });
}

describe('detect/detectors/lateral-movement (MITRE BZAR)', () => {
  it('knows administrative shares and extensions', () => {
    expect(['\\\\dc1\\ADMIN$', '\\\\h\\c$', '\\\\h\\D$'].map(isAdminShare)).to.deep.equal([true, true, true]);
    expect(['\\\\dc1\\IPC$', '\\\\h\\public', '\\\\h\\print$', null].map(isAdminShare)).to.deep.equal([false, false, false, false]);
    expect([fileExtension('temp\\mimikatz.EXE'), fileExtension('a.b\\noext'), fileExtension('.hidden')]).to.deep.equal(['exe', null, null]);
  });

  it('an executable written to ADMIN$ is high; with CreateService/StartService it is critical', () => {
    const exe = file('PSEXESVC.exe', '\\\\dc1\\ADMIN$', { write: true, written: true });
    const d = new LateralMovementDetector(config.lateralMovement, 100);
    const [alone] = d.observe([smbFlow([exe])]);
    expect(alone).to.include({ category: 'lateral_movement', severity: 'high', srcIp: '192.168.10.31', dstIp: '192.168.10.10', target: '192.168.10.10' });
    expect(alone?.details).to.deep.include({
      techniques: ['T1021.002', 'T1570'],
      filesWritten: [{ share: '\\\\dc1\\ADMIN$', name: 'PSEXESVC.exe', writeAccess: true, written: true, read: false }],
    });
    const [both] = new LateralMovementDetector(config.lateralMovement, 100).observe([
      smbFlow(
        [exe, file('svcctl', '\\\\dc1\\IPC$', { pipe: true, write: true, written: true })],
        [op('svcctl', 15, 'OpenSCManagerW'), op('svcctl', 45, 'CreateServiceWOW64W'), op('svcctl', 19, 'StartServiceW')],
      ),
    ]);
    expect(both?.severity).to.equal('critical');
    expect(both?.details.executionOperations).to.deep.equal(['svcctl::CreateServiceWOW64W', 'svcctl::StartServiceW']);
    // The same evidence again (a snapshot of the session) is not reported twice.
    expect(d.observe([smbFlow([exe])])).to.deep.equal([]);
    // The service created over another session 5 minutes later: BZAR's Lateral_Movement_and_Execution.
    const later = smbFlow([], [op('svcctl', 12, 'CreateServiceW')], { firstSeenMs: T0 + 300_000 });
    const [correlated] = d.observe([later]);
    expect(correlated).to.include({ severity: 'critical' });
    expect(correlated?.details).to.include({ pushAndExecution: true, windowSec: 600 });
    // Eleven minutes later it is a separate, high, event.
    const apart = smbFlow([], [op('svcctl', 19, 'StartServiceW')], { firstSeenMs: T0 + 660_000, srcIp: '192.168.10.32' });
    const d2 = new LateralMovementDetector(config.lateralMovement, 100);
    expect(d2.observe([smbFlow([exe], [], { srcIp: '192.168.10.32' }), apart]).map((x) => x.severity)).to.deep.equal(['high', 'high']);
  });

  it('remote task creation alone is high; an executable pulled from C$ is medium; reads can be turned off', () => {
    const [task] = new LateralMovementDetector(config.lateralMovement, 100).observe([smbFlow([], [op('ITaskSchedulerService', 1, 'SchRpcRegisterTask')])]);
    expect(task).to.include({ severity: 'high' });
    expect(task?.details.techniques).to.deep.equal(['T1053.005']);
    const pulled = smbFlow([file('temp\\mimikatz.exe', '\\\\admin-pc\\c$', { read: true }), file('temp\\mimikatz.exe', '\\\\admin-pc\\c$', { read: true })]);
    const [pull] = new LateralMovementDetector(config.lateralMovement, 100).observe([pulled]);
    expect(pull).to.include({ severity: 'medium' });
    expect(pull?.details.filesRead).to.have.length(1);
    const off = loadDetectionConfig({ VIGIL_DETECT_LATERAL_READS: 'off' });
    expect(new LateralMovementDetector(off.lateralMovement, 100).observe([pulled])).to.deep.equal([]);
  });

  it('ordinary shares, documents, pipes and plain RPC raise nothing', () => {
    const flows = [
      smbFlow([file('setup.exe', '\\\\fs1\\software', { write: true, written: true })]),
      smbFlow([file('report.docx', '\\\\fs1\\c$', { write: true, written: true })]),
      smbFlow([file('svcctl', '\\\\dc1\\IPC$', { pipe: true, write: true })], [op('svcctl', 15, 'OpenSCManagerW'), op('svcctl', 6, 'QueryServiceStatus')]),
    ];
    expect(new LateralMovementDetector(config.lateralMovement, 100).observe(flows)).to.deep.equal([]);
  });

  it('rejects a bad extension list naming the variable', () => {
    expect(() => loadDetectionConfig({ VIGIL_DETECT_LATERAL_EXTENSIONS: 'exe,../x' })).to.throw(/VIGIL_DETECT_LATERAL_EXTENSIONS/);
  });
});

describe('detect/detectors/zerologon (corelight/zerologon)', () => {
  const attempt = (i: number, ops: FlowDcerpcOp[], src = '172.16.0.10'): FlowRecord =>
    makeFlow({
      srcIp: src,
      srcPort: 50000 + i,
      dstIp: '172.16.5.58',
      dstPort: 49668,
      firstSeenMs: T0 + i * 500,
      app: 'dcerpc',
      appBy: 'content',
      dcerpc: { interfaces: ['netlogon'], ops, binds: 1, requests: ops.length },
    });
  const pair = [op('netlogon', 4, 'NetrServerReqChallenge'), op('netlogon', 26, 'NetrServerAuthenticate3')];

  it('counts challenge/authenticate pairs per server across clients, within the window', () => {
    const flows = Array.from({ length: 30 }, (_, i) => attempt(i, pair, i % 2 === 0 ? '172.16.0.10' : '172.16.0.11'));
    const findings = new ZerologonDetector(config.zerologon, 100).observe(flows);
    expect(findings).to.have.length(1);
    expect(findings[0]).to.include({ category: 'exploit', severity: 'high', dstIp: '172.16.5.58' });
    expect(findings[0]?.details).to.deep.include({ reqChallenge: 20, authenticate: 20, clients: ['172.16.0.10', '172.16.0.11'], windowSec: 120 });
    // Spread over more than the window, 30 pairs never make 20 in one.
    const slow = Array.from({ length: 30 }, (_, i) => makeFlow({ ...attempt(i, pair), firstSeenMs: T0 + i * 10_000, lastSeenMs: T0 + i * 10_000 + 1 }));
    expect(new ZerologonDetector(config.zerologon, 100).observe(slow)).to.deep.equal([]);
  });

  it('is critical when NetrServerPasswordSet2 follows the burst', () => {
    const set2 = (i: number): FlowRecord => attempt(i, [op('netlogon', 30, 'NetrServerPasswordSet2')]);
    const flows = [...Array.from({ length: 20 }, (_, i) => attempt(i, pair)), set2(21), attempt(22, pair), set2(23)];
    const findings = new ZerologonDetector(config.zerologon, 100).observe(flows);
    expect(findings.map((f) => f.severity)).to.deep.equal(['high', 'critical']);
    expect(findings[1]?.details.passwordSet2).to.equal(1);
  });

  it('the brute-force rule does not count DCE-RPC connections', () => {
    const flows = Array.from({ length: 30 }, (_, i) =>
      makeFlow({ ...attempt(i, pair), durationUs: 20_000, fwdPayloadBytes: 400, bwdPayloadBytes: 380, endReason: 'fin' }),
    );
    expect(new BruteForceDetector(config.bruteForce, 1000).observe(flows)).to.deep.equal([]);
    const unlabeled = flows.map((f) => ({ ...f, app: null, appBy: null, dcerpc: null }));
    expect(new BruteForceDetector(config.bruteForce, 1000).observe(unlabeled).map((f) => f.category)).to.deep.equal(['brute_force']);
  });
});
