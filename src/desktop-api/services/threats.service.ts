/** Threats for the map: stored rows plus whether the firewall blocks the IP now. */
import { GEO_ATTRIBUTION } from '../../detect/geo.js';
import { parsePrograms } from '../../detect/programs.js';
import { parseNames } from '../../detect/server-names.js';
import type { FirewallService } from '../../firewall/types.js';
import type { Store } from '../../store/database.js';
import { listThreats } from '../../store/repos/threat.repo.js';
import type { ThreatRow } from '../../store/tables/threat.table.js';
import type { Threat } from '../schemas/threat.schema.js';

/** Maps a stored row to the API's threat shape (location null when there are no coordinates). */
export function toThreat(row: ThreatRow, blocked: boolean): Threat {
  return {
    ip: row.ip,
    severity: row.severity,
    score: row.score,
    category: row.category,
    alerts: row.alerts,
    firstSeen: row.first_seen,
    lastSeen: row.last_seen,
    blocked,
    location:
      row.latitude === null || row.longitude === null
        ? null
        : { country: row.country, countryCode: row.country_code, city: row.city, latitude: row.latitude, longitude: row.longitude },
    serverNames: parseNames(row.server_names),
    programs: parsePrograms(row.programs),
  };
}

export class ThreatsService {
  constructor(
    private readonly store: Store,
    private readonly firewall: Pick<FirewallService, 'isBlocked'>,
  ) {}

  async list(): Promise<{ threats: Threat[]; attribution: { text: string; url: string } }> {
    const rows = await listThreats(this.store);
    return { threats: rows.map((r) => toThreat(r, this.firewall.isBlocked(r.ip))), attribution: { ...GEO_ATTRIBUTION } };
  }
}
