/**
 * Lateral movement over SMB2 and DCE-RPC (`lateral_movement`), after MITRE's BZAR (github.com/mitre-attack/bzar:
 * `scripts/bzar_smb2_detect.zeek`, `bzar_smb_consts.zeek` `smb_admin_file_shares`, `bzar_dce-rpc_consts.zeek`
 * `t1569_002_rpc_strings`, `t1053_002_rpc_strings`, `t1053_005_rpc_strings`; logic learned, no code copied):
 * - T1021.002 + T1570, lateral tool transfer to an administrative share: a program or script (by extension) created
 *   for writing or written on `ADMIN$` or a drive share (`C$`, any `X$`; never `IPC$`). `high`.
 * - T1569.002 / T1053, remote execution: svcctl CreateService* / StartService*, atsvc JobAdd, ITaskSchedulerService
 *   SchRpcRegisterTask / SchRpcRun / SchRpcEnableTask, whether over SMB named pipes or plain TCP. `high`.
 * - both from one source to one target within `windowSec` (10 min: BZAR's `bzar1_epoch` for its
 *   ATTACK::Lateral_Movement_and_Execution correlation; PsExec copies to ADMIN$ on one connection, then creates and
 *   starts its service over another): `critical`.
 * - a program read (pulled) from an administrative share: tool transfer the other way, `medium` (BZAR reports writes
 *   only; `VIGIL_DETECT_LATERAL_READS=off` drops it).
 * BZAR itself recommends against reporting an admin-share connection alone (`t1021_002_report_option = F`), and a
 * file copy to an ordinary share is not evidence: neither raises anything here.
 */
import type { LateralMovementConfig } from '../../config/detection.js';
import { flowColumns } from '../../native/flow-batch.js';
import { FLOW_COLUMN as C } from '../../native/flow-columns.js';
import type { FlowDcerpcOp, FlowRecord, FlowSmbFile } from '../../native/flow-record.js';
import type { Detector, Finding } from '../finding.js';

/** Remote execution operations by interface (BZAR's rpc_strings for T1569.002, T1053.002, T1053.005). */
export const EXECUTION_OPS: Readonly<Record<string, ReadonlySet<number>>> = {
  // CreateServiceW 12, CreateServiceA 24, CreateServiceWOW64A 44, CreateServiceWOW64W 45, StartServiceW 19, StartServiceA 31
  svcctl: new Set([12, 24, 44, 45, 19, 31]),
  // JobAdd 0
  atsvc: new Set([0]),
  // SchRpcRegisterTask 1, SchRpcRun 12, SchRpcEnableTask 19
  ITaskSchedulerService: new Set([1, 12, 19]),
};

/** The share of a tree path (`\\host\ADMIN$` -> `ADMIN$`). */
export function shareName(path: string): string {
  return path.slice(path.lastIndexOf('\\') + 1);
}

/** BZAR's administrative file shares: `ADMIN$` and drive shares (`C$`, any letter); `IPC$` is not one. */
export function isAdminShare(path: string | null): boolean {
  if (path === null) return false;
  return /^(?:admin\$|[a-z]\$)$/i.test(shareName(path));
}

/** The file extension of a share-relative name (lower case, no dot); null when none. */
export function fileExtension(name: string): string | null {
  const base = name.slice(Math.max(name.lastIndexOf('\\'), name.lastIndexOf('/')) + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 && dot < base.length - 1 ? base.slice(dot + 1).toLowerCase() : null;
}

/** Most files and operations an alert lists. */
const MAX_LISTED = 8;

export class LateralMovementDetector implements Detector {
  readonly name = 'lateral_movement';
  private readonly extensions: ReadonlySet<string>;
  /** Evidence already reported: `src|dst|what` (bounded; snapshots of a long session repeat it). */
  private readonly reported = new Set<string>();
  /** Per `src|dst`: when a program was last pushed and an execution operation last called (epoch ms; bounded). */
  private readonly pairs = new Map<string, { pushMs: number; execMs: number }>();

  constructor(
    private readonly config: LateralMovementConfig,
    private readonly maxTracked: number,
  ) {
    this.extensions = new Set(config.extensions);
  }

  observe(flows: readonly FlowRecord[]): Finding[] {
    if (!this.config.enabled) return [];
    const out: Finding[] = [];
    const { cols, n } = flowColumns(flows);
    for (let i = 0; i < n; i++) {
      // Only flows the core saw SMB or DCE-RPC requests on.
      if (!((cols[C.smbRequests * n + i] as number) > 0) && !((cols[C.dcerpcRequests * n + i] as number) > 0)) continue;
      const finding = this.inspect(flows[i] as FlowRecord);
      if (finding !== null) out.push(finding);
    }
    return out;
  }

  /**
   * The finding of one flow with SMB or DCE-RPC requests, or null (a method of its own: its closures capture the flow,
   * and in the loop above they made every iteration allocate their context, for the few flows that get here).
   */
  private inspect(f: FlowRecord): Finding | null {
    const program = (file: FlowSmbFile): boolean => !file.pipe && isAdminShare(file.share) && this.extensions.has(fileExtension(file.name) ?? '');
    const files = f.smb?.files ?? [];
    const pushed = unique(files.filter((x) => program(x) && (x.write || x.written)));
    const pulled = this.config.reads ? unique(files.filter((x) => program(x) && x.read && !x.write && !x.written)) : [];
    const execs = (f.dcerpc?.ops ?? []).filter((op) => op.iface !== null && EXECUTION_OPS[op.iface]?.has(op.opnum) === true);
    if (pushed.length === 0 && pulled.length === 0 && execs.length === 0) return null;
    // BZAR's Lateral_Movement_and_Execution: a push and an execution call between the same two hosts, any sessions.
    const pairKey = `${f.srcIp}|${f.dstIp}`;
    let pair = this.pairs.get(pairKey);
    if (pair === undefined) {
      pair = { pushMs: Number.NEGATIVE_INFINITY, execMs: Number.NEGATIVE_INFINITY };
      this.pairs.set(pairKey, pair);
      if (this.pairs.size > this.maxTracked) this.pairs.delete(this.pairs.keys().next().value as string);
    }
    if (pushed.length > 0) pair.pushMs = Math.max(pair.pushMs, f.lastSeenMs);
    if (execs.length > 0) pair.execMs = Math.max(pair.execMs, f.lastSeenMs);
    const windowMs = this.config.windowSec * 1000;
    const near = (t: number): boolean => Math.abs(t - f.lastSeenMs) <= windowMs;
    const correlated = (pushed.length > 0 && near(pair.execMs)) || (execs.length > 0 && near(pair.pushMs));
    const key = `${f.srcIp}|${f.dstIp}|${pushed.map((x) => x.name).join(',')}|${pulled.map((x) => x.name).join(',')}|${execs.map(opText).join(',')}`;
    if (this.reported.has(key)) return null;
    this.reported.add(key);
    if (this.reported.size > this.maxTracked) this.reported.delete(this.reported.values().next().value as string);
    return this.finding(f, pushed, pulled, execs, correlated);
  }

  private finding(f: FlowRecord, pushed: FlowSmbFile[], pulled: FlowSmbFile[], execs: FlowDcerpcOp[], correlated: boolean): Finding {
    const severity = correlated ? 'critical' : pushed.length > 0 || execs.length > 0 ? 'high' : 'medium';
    const techniques = [
      ...(pushed.length > 0 ? ['T1021.002', 'T1570'] : []),
      ...(pulled.length > 0 && pushed.length === 0 ? ['T1570'] : []),
      ...(execs.some((o) => o.iface === 'svcctl') ? ['T1569.002'] : []),
      ...(execs.some((o) => o.iface === 'atsvc') ? ['T1053.002'] : []),
      ...(execs.some((o) => o.iface === 'ITaskSchedulerService') ? ['T1053.005'] : []),
    ];
    const what: string[] = [];
    if (pushed.length > 0) what.push(`put ${pushed.map(fileText).join(', ')} on an administrative share`);
    if (execs.length > 0) what.push(`called ${execs.map(opText).join(', ')}`);
    if (pulled.length > 0) what.push(`pulled ${pulled.map(fileText).join(', ')} from an administrative share`);
    if (correlated && pushed.length === 0) what.push('after a program was put on its administrative share');
    if (correlated && execs.length === 0) what.push('after a remote service or task was created or started');
    const summary = what.join(' and ');
    return {
      category: 'lateral_movement',
      source: 'rule',
      severity,
      score: severity === 'critical' ? 0.95 : severity === 'high' ? 0.85 : 0.65,
      srcIp: f.srcIp,
      srcPort: null,
      dstIp: f.dstIp,
      dstPort: f.dstPort,
      protocol: f.protocol,
      target: f.dstIp,
      threatIp: f.srcIp,
      title: `Lateral movement from ${f.srcIp} to ${f.dstIp}: ${summary}`.slice(0, 300),
      description:
        `${f.srcIp} ${summary} on ${f.dstIp}:${f.dstPort} (${techniques.join(', ')}): what PsExec, Impacket and ` +
        `worms do to run code on another Windows host (MITRE BZAR). Check whether an administrator did this on purpose.`,
      count: 1,
      firstSeenMs: f.firstSeenMs,
      lastSeenMs: f.lastSeenMs,
      details: {
        detector: 'lateral_movement',
        techniques,
        shares: f.smb?.shares ?? [],
        filesWritten: pushed.slice(0, MAX_LISTED).map(fileDetail),
        filesRead: pulled.slice(0, MAX_LISTED).map(fileDetail),
        rpcInterfaces: f.dcerpc?.interfaces ?? [],
        rpcOperations: (f.dcerpc?.ops ?? []).slice(0, MAX_LISTED).map((o) => ({ iface: o.iface, opnum: o.opnum, name: o.name, count: o.count })),
        executionOperations: execs.map(opText),
        pushAndExecution: correlated,
        windowSec: this.config.windowSec,
        app: f.app ?? null,
        countUnit: 'sessions',
      },
    };
  }
}

/** One entry per (share, name) (a client opens a file several times). */
function unique(files: FlowSmbFile[]): FlowSmbFile[] {
  const seen = new Map<string, FlowSmbFile>();
  for (const x of files) {
    const k = `${x.share ?? ''}|${x.name.toLowerCase()}`;
    const had = seen.get(k);
    seen.set(k, had ? { ...had, write: had.write || x.write, written: had.written || x.written, read: had.read || x.read } : x);
  }
  return [...seen.values()];
}

function fileText(x: FlowSmbFile): string {
  return `${x.share ?? '?'}\\${x.name}`;
}

function fileDetail(x: FlowSmbFile): Record<string, unknown> {
  return { share: x.share, name: x.name, writeAccess: x.write, written: x.written, read: x.read };
}

function opText(o: FlowDcerpcOp): string {
  return `${o.iface ?? '?'}::${o.name ?? `opnum ${o.opnum}`}`;
}
