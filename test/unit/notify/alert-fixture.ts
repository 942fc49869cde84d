/** Alerts as `GET /api/alerts/:id` shows them, for the sink tests. */
import type { AlertView, Severity } from '../../../src/domain/alert.js';

export function alertView(id: number, severity: Severity = 'high', srcIp = '192.0.2.10'): AlertView {
  return {
    id,
    createdAt: '2026-11-27T10:00:00.000Z',
    updatedAt: '2026-11-27T10:00:00.000Z',
    severity,
    category: 'port_scan',
    title: 'Port scan',
    description: 'Probed 120 ports in 10 s',
    srcIp,
    srcPort: null,
    dstIp: '198.51.100.7',
    dstPort: 22,
    protocol: 6,
    score: null,
    source: 'rule',
    acknowledged: false,
    acknowledgedAt: null,
    count: 3,
    firstSeen: '2026-11-27T09:59:50.000Z',
    lastSeen: '2026-11-27T10:00:00.000Z',
    details: { ports: 120 },
    serverNames: ['ssh.example'],
    programs: [],
  };
}
