/** Alert rows for tests that store alerts directly (as detection's aggregator does). */
import type { NewAlert } from '../../src/store/tables/alert.table.js';

/** A valid alert row; override what the test cares about. */
export function alertRow(over: Partial<NewAlert> = {}): NewAlert {
  const t = over.created_at ?? '2026-01-01T00:00:00.000Z';
  return {
    created_at: t,
    updated_at: t,
    severity: 'medium',
    category: 'port_scan',
    title: 'Port scan',
    description: 'many ports',
    src_ip: '203.0.113.5',
    src_port: null,
    dst_ip: '192.168.1.10',
    dst_port: null,
    protocol: 6,
    score: 0.8,
    source: 'rule',
    acknowledged: 0,
    acknowledged_at: null,
    aggregation_key: 'scan:203.0.113.5',
    count: 1,
    first_seen: t,
    last_seen: t,
    details: '{}',
    ...over,
  };
}
