/** Stored flow summaries for `GET /api/flows`: the store's rows mapped to the API's flow shape. */
import { normaliseIp } from '../../net/address.js';
import type { Store } from '../../store/database.js';
import { listFlows } from '../../store/repos/flow.repo.js';
import type { FlowRow } from '../../store/tables/flow.table.js';
import type { Flow, FlowList, FlowListQuery } from '../schemas/flow.schema.js';

/** Maps a stored row to the API's flow shape. */
export function toFlow(row: FlowRow): Flow {
  return {
    id: row.id,
    flowId: row.flow_id,
    srcIp: row.src_ip,
    srcPort: row.src_port,
    dstIp: row.dst_ip,
    dstPort: row.dst_port,
    protocol: row.protocol,
    packets: row.packets,
    bytes: row.bytes,
    firstSeen: row.first_seen,
    lastSeen: row.last_seen,
    durationMs: row.duration_us / 1000,
    state: row.end_reason === 'snapshot' ? 'active' : 'ended',
    endReason: row.end_reason,
    app: row.app,
    serverName: row.server_name,
    communityId: row.community_id,
    process:
      row.process_pid === null
        ? null
        : {
            pid: row.process_pid,
            name: row.process_name,
            exe: row.process_exe,
            user: row.process_user,
            uid: row.process_uid,
            unit: row.process_unit,
            container: row.process_container,
          },
  };
}

export class FlowsService {
  constructor(private readonly store: Store) {}

  /** One page, newest first; `nextBefore` is set when the page is full (there may be more). */
  async list(q: FlowListQuery): Promise<FlowList> {
    const rows = await listFlows(this.store, {
      limit: q.limit,
      before: q.before,
      ip: q.ip === undefined ? undefined : normaliseIp(q.ip),
      name: q.name,
      app: q.app,
      process: q.process,
    });
    const flows = rows.map(toFlow);
    return { flows, nextBefore: flows.length === q.limit ? flows[flows.length - 1].id : null };
  }
}
