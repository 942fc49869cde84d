/**
 * SMB2 and DCE-RPC through the real addon (native/app/smb.h, dcerpc.h, pdu_framer.h), on captures built here in the
 * shapes of the evaluation's PsExec, Zerologon and file-copy captures (which are not in the repository): the flow
 * fields `smb` / `dcerpc`, then the lateral-movement and Zerologon detectors on those flows.
 */
import { expect } from 'chai';
import path from 'node:path';
import { loadDetectionConfig } from '../../src/config/detection.js';
import { LateralMovementDetector } from '../../src/detect/detectors/lateral-movement.js';
import { ZerologonDetector } from '../../src/detect/detectors/zerologon.js';
import { replayFile } from '../../src/native/capture.js';
import type { FlowRecord } from '../../src/native/types.js';
import { tempDir } from '../helpers/setup.js';
import {
  clientMessage as c,
  create,
  createResponse,
  dcerpcBind,
  dcerpcRequest,
  FILE_READ_DATA,
  fileId as fid,
  GENERIC_WRITE,
  netbios,
  NETLOGON_UUID,
  serverMessage as s,
  SVCCTL_UUID,
  transceive,
  treeConnect,
  treeConnectResponse,
  write,
} from '../helpers/smb-bytes.js';
import { tcpSessions, type Segment } from '../helpers/pcap-file.js';

const ATTACKER = [192, 168, 10, 31];
const VICTIM = [192, 168, 10, 10];

/** PsExec's shape: PSEXESVC.exe onto ADMIN$ (its write cut over three segments), then svcctl on IPC$. */
function psexecSegments(): Segment[] {
  const exe = Buffer.alloc(3000, 0x4d);
  const bigWrite = netbios(write(4, 1, fid(7), exe));
  return [
    c(treeConnect(2, '\\\\dc1\\ADMIN$')),
    s(treeConnectResponse(2, 1, 1)),
    c(create(3, 1, 'PSEXESVC.exe', GENERIC_WRITE, 5)),
    s(createResponse(3, 1, Buffer.alloc(16), 0x103)), // STATUS_PENDING: an interim response, the final one follows
    s(createResponse(3, 1, fid(7))),
    { fromClient: true, payload: bigWrite.subarray(0, 100) },
    { fromClient: true, payload: bigWrite.subarray(100, 1500) },
    { fromClient: true, payload: bigWrite.subarray(1500) },
    c(treeConnect(5, '\\\\dc1\\IPC$')),
    s(treeConnectResponse(5, 2, 2)),
    c(create(6, 2, 'svcctl', GENERIC_WRITE | FILE_READ_DATA, 1)),
    s(createResponse(6, 2, fid(9))),
    c(write(7, 2, fid(9), dcerpcBind(SVCCTL_UUID, 2))),
    c(transceive(8, 2, fid(9), dcerpcRequest(15, Buffer.alloc(40)))),
    c(transceive(9, 2, fid(9), dcerpcRequest(12, Buffer.alloc(200)))),
    c(transceive(10, 2, fid(9), dcerpcRequest(19, Buffer.alloc(24)))),
  ];
}

async function tcpFlows(file: string, appLayer = true): Promise<FlowRecord[]> {
  const { flows } = await replayFile(file, { appLayer });
  return flows.filter((f) => f.protocol === 6);
}

describe('SMB2 and DCE-RPC (native/app/smb, dcerpc)', function () {
  this.timeout(20000);
  const config = loadDetectionConfig({});

  it('reads shares, files, writes and the RPC calls on a pipe of a PsExec-like session', async () => {
    const file = path.join(tempDir(), 'psexec.pcap');
    tcpSessions(file, ATTACKER, VICTIM, [{ port: 445, segments: psexecSegments() }]);
    const [flow] = await tcpFlows(file);
    expect(flow?.app).to.equal('smb');
    expect(flow?.smb).to.deep.equal({
      shares: ['\\\\dc1\\ADMIN$', '\\\\dc1\\IPC$'],
      files: [
        { name: 'PSEXESVC.exe', share: '\\\\dc1\\ADMIN$', write: true, written: true, read: false, pipe: false },
        { name: 'svcctl', share: '\\\\dc1\\IPC$', write: true, written: true, read: false, pipe: true },
      ],
      requests: 9,
      trees: 2,
      creates: 2,
      writes: 2,
      reads: 0,
    });
    expect(flow?.dcerpc).to.deep.equal({
      interfaces: ['svcctl'],
      ops: [
        { iface: 'svcctl', opnum: 15, name: 'OpenSCManagerW', count: 1 },
        { iface: 'svcctl', opnum: 12, name: 'CreateServiceW', count: 1 },
        { iface: 'svcctl', opnum: 19, name: 'StartServiceW', count: 1 },
      ],
      binds: 1,
      requests: 3,
    });
    const findings = new LateralMovementDetector(config.lateralMovement, 100).observe([flow as FlowRecord]);
    expect(findings).to.have.length(1);
    expect(findings[0]).to.include({ category: 'lateral_movement', severity: 'critical', srcIp: '192.168.10.31', dstIp: '192.168.10.10' });
    expect(findings[0]?.details).to.deep.include({
      techniques: ['T1021.002', 'T1570', 'T1569.002'],
      executionOperations: ['svcctl::CreateServiceW', 'svcctl::StartServiceW'],
    });
  });

  it('leaves smb and dcerpc null with the application layer off', async () => {
    const file = path.join(tempDir(), 'psexec-off.pcap');
    tcpSessions(file, ATTACKER, VICTIM, [{ port: 445, segments: psexecSegments() }]);
    const [flow] = await tcpFlows(file, false);
    expect(flow?.smb ?? null).to.equal(null);
    expect(flow?.dcerpc ?? null).to.equal(null);
  });

  it('raises nothing for a document copied to an ordinary share, or a refused ADMIN$', async () => {
    const file = path.join(tempDir(), 'copy.pcap');
    tcpSessions(file, ATTACKER, VICTIM, [
      {
        port: 445,
        segments: [
          c(treeConnect(2, '\\\\fs1\\public')),
          s(treeConnectResponse(2, 1, 1)),
          c(create(3, 1, 'reports\\q3.docx', GENERIC_WRITE, 2)),
          s(createResponse(3, 1, fid(3))),
          c(write(4, 1, fid(3), Buffer.alloc(500, 1))),
          c(treeConnect(5, '\\\\fs1\\ADMIN$')),
          s(treeConnectResponse(5, 0, 0, 0xc0000022)), // STATUS_ACCESS_DENIED
        ],
      },
    ]);
    const [flow] = await tcpFlows(file);
    expect(flow?.smb?.shares).to.deep.equal(['\\\\fs1\\public']);
    expect(flow?.smb?.files).to.deep.equal([{ name: 'reports\\q3.docx', share: '\\\\fs1\\public', write: true, written: true, read: false, pipe: false }]);
    expect(new LateralMovementDetector(config.lateralMovement, 100).observe([flow as FlowRecord])).to.deep.equal([]);
  });

  it('counts malformed messages per reason and keeps going', async () => {
    const file = path.join(tempDir(), 'malformed.pcap');
    const badSize = treeConnect(2, '\\\\dc1\\C$');
    badSize.writeUInt16LE(63, 4); // StructureSize must be 64
    const badOffset = create(3, 1, 'x.exe', GENERIC_WRITE, 2);
    badOffset.writeUInt16LE(900, 64 + 44); // NameOffset past the message
    const rpc = Buffer.concat([dcerpcBind(NETLOGON_UUID, 1), Buffer.from('garbage that is no DCE-RPC header')]);
    tcpSessions(file, ATTACKER, VICTIM, [
      { port: 445, segments: [c(badSize), c(badOffset), c(treeConnect(4, '\\\\dc1\\public')), s(treeConnectResponse(4, 1, 1))] },
      { port: 49668, segments: [{ fromClient: true, payload: rpc }] },
    ]);
    const { flows, stats } = await replayFile(file);
    const smb = flows.find((f) => f.app === 'smb');
    expect(smb?.smb?.shares).to.deep.equal(['\\\\dc1\\public']);
    expect(flows.find((f) => f.app === 'dcerpc')?.dcerpc?.interfaces).to.deep.equal(['netlogon']);
    const errors = stats.appLayer?.errors ?? {};
    expect([errors.smb_bad_header, errors.smb_bad_offset, errors.dcerpc_not_dcerpc]).to.deep.equal([1, 1, 1]);
    expect(stats.appLayer?.counters.smb_messages).to.equal(4);
  });

  it('reads Netlogon calls over plain TCP and raises Zerologon on a burst of them', async () => {
    const file = path.join(tempDir(), 'zerologon.pcap');
    const attempt = {
      port: 49668,
      segments: [
        { fromClient: true, payload: dcerpcBind(NETLOGON_UUID, 1) },
        { fromClient: true, payload: Buffer.concat([dcerpcRequest(4, Buffer.alloc(30)), dcerpcRequest(26, Buffer.alloc(60), 3)]) },
      ],
    };
    tcpSessions(
      file,
      [172, 16, 0, 10],
      [172, 16, 5, 58],
      Array.from({ length: 25 }, () => attempt),
    );
    const flows = await tcpFlows(file);
    expect(flows).to.have.length(25);
    expect(flows[0]?.app).to.equal('dcerpc');
    expect(flows[0]?.dcerpc?.ops).to.deep.equal([
      { iface: 'netlogon', opnum: 4, name: 'NetrServerReqChallenge', count: 1 },
      { iface: 'netlogon', opnum: 26, name: 'NetrServerAuthenticate3', count: 1 },
    ]);
    const findings = new ZerologonDetector(config.zerologon, 100).observe(flows);
    expect(findings).to.have.length(1);
    expect(findings[0]).to.include({ category: 'exploit', severity: 'high', srcIp: '172.16.0.10', dstIp: '172.16.5.58' });
    expect(findings[0]?.details).to.include({ reqChallenge: 20, authenticate: 20, passwordSet2: 0, threshold: 20 });
    // 19 attempts stay below corelight's cutoff.
    expect(new ZerologonDetector(config.zerologon, 100).observe(flows.slice(0, 19))).to.deep.equal([]);
  });
});
