/**
 * The one mapping from a stored alert row to the alert shape clients see: the desktop API's alert bodies and the
 * `alert` events on the event bus (and so the SSE stream) both use it, so the two can never disagree.
 */
import type { AlertView } from '../domain/alert.js';
import type { AlertRow } from '../store/tables/alert.table.js';
import { parsePrograms } from './programs.js';
import { parseNames } from './server-names.js';

/** Parses the `details` JSON column; a corrupt value becomes `{raw}` rather than an error. */
export function parseDetails(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
  } catch {
    return { raw: text };
  }
}

/** Stored row -> view (score clamped to 0..1, count at least 1). */
export function toAlertView(row: AlertRow): AlertView {
  return {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    severity: row.severity,
    category: row.category,
    title: row.title,
    description: row.description,
    srcIp: row.src_ip,
    srcPort: row.src_port,
    dstIp: row.dst_ip,
    dstPort: row.dst_port,
    protocol: row.protocol,
    score: row.score === null ? null : Math.min(1, Math.max(0, row.score)),
    source: row.source,
    acknowledged: row.acknowledged === 1,
    acknowledgedAt: row.acknowledged_at,
    count: Math.max(1, row.count),
    firstSeen: row.first_seen,
    lastSeen: row.last_seen,
    details: parseDetails(row.details),
    serverNames: parseNames(row.server_names),
    programs: parsePrograms(row.programs),
  };
}
