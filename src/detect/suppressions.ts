/**
 * Suppression rules as detection applies them: a finding whose category is the rule's, whose source address falls in
 * the rule's source (address or prefix), whose destination falls in its target and one of whose server names is the
 * rule's name or a subdomain of it (each part only when the rule has it) is dropped before it is stored, and counted
 * on the rule. The rules live in the store (`suppressions`, written by the desktop API); the alert aggregator reads the
 * active ones in the transaction that stores the batch, so a rule applies from the first batch after it is created and
 * an expired rule stops applying at its `expires_at`. The idea follows Suricata's threshold.config `suppress` (by
 * signature and `track by_src`/`by_dst` with an address or subnet; the signature still runs, only its alert is
 * dropped), learned from OISF/suricata `doc/userguide/configuration/global-thresholds.rst`.
 */
import { tryParseAddress, type ParsedAddress } from '../net/cidr.js';
import type { SuppressionRow } from '../store/tables/suppression.table.js';
import type { Finding } from './finding.js';

/** A stored rule ready to match. */
export interface SuppressionMatcher {
  id: number;
  category: string;
  source: ParsedAddress | null;
  target: ParsedAddress | null;
  serverName: string | null;
}

/** Compiles stored rules (a rule whose address no longer parses matches nothing rather than everything). */
export function compileSuppressions(rows: readonly SuppressionRow[]): SuppressionMatcher[] {
  const out: SuppressionMatcher[] = [];
  for (const r of rows) {
    const source = r.source === null ? null : tryParseAddress(r.source);
    const target = r.target === null ? null : tryParseAddress(r.target);
    if ((r.source !== null && source === null) || (r.target !== null && target === null)) continue;
    if (source === null && target === null && r.server_name === null) continue;
    out.push({ id: r.id, category: r.category, source, target, serverName: r.server_name });
  }
  return out;
}

/** True when `ip` (a flow address) falls in `range`. */
function within(range: ParsedAddress, ip: string | null): boolean {
  if (ip === null) return false;
  const a = tryParseAddress(ip);
  return a !== null && a.family === range.family && a.first >= range.first && a.last <= range.last;
}

/** True when `name` is `suffix` or a subdomain of it. */
export function nameWithin(name: string, suffix: string): boolean {
  return name === suffix || (name.length > suffix.length && name.endsWith(suffix) && name.charCodeAt(name.length - suffix.length - 1) === 46);
}

/** The first rule that silences `f`, or null. */
export function matchSuppression(rules: readonly SuppressionMatcher[], f: Finding): SuppressionMatcher | null {
  for (const r of rules) {
    if (r.category !== f.category) continue;
    if (r.source !== null && !within(r.source, f.srcIp)) continue;
    if (r.target !== null && !within(r.target, f.dstIp)) continue;
    if (r.serverName !== null) {
      const name = r.serverName;
      if (!(f.serverNames ?? []).some((n) => nameWithin(n, name))) continue;
    }
    return r;
  }
  return null;
}
