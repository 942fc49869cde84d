/**
 * Threat-intelligence lists the user provides (`VIGIL_INTEL_FILES`), loaded once at start into one index: addresses and
 * CIDR prefixes (IPv4 and IPv6) and domain names. Each entry remembers its list (the file's name) and its text, so an
 * alert can say which list and which entry matched.
 *
 * Formats, line by line (a file may mix them; `#` starts a comment anywhere, `;` after an entry as in Spamhaus DROP):
 * - plain address or prefix lines: `203.0.113.7`, `198.51.100.0/24`, `2001:db8::/32`;
 * - ipset `save` output: `add SETNAME 203.0.113.7` (its `create` lines are directives, not entries);
 * - hosts files: `0.0.0.0 bad.example [more names]` (the address is a sink, the names are the entries; `localhost` and
 *   its kin are skipped);
 * - domain lists: one name per line (`bad.example`, also `*.bad.example`); a listed name matches its subdomains.
 * A line that is none of these is counted as malformed and skipped; a file that cannot be read, or that is not text
 * (a NUL byte or invalid UTF-8), stops the start with an error naming the file (and the line).
 *
 * Lookups: an address is looked up once per distinct prefix length the lists hold, longest first, in a hash map per
 * length (the way ipset's `hash:net` sets test each prefix size they hold), so the cost per flow does not grow with
 * the number of entries; a name is looked up as itself and then each parent domain. Zeek's Intel framework keeps the
 * same three kinds apart (`Intel::ADDR` in a table of addresses, `Intel::SUBNET` in a subnet table searched with
 * `matching_subnets`, `Intel::DOMAIN` as lower-cased strings) and reports the `source` of each match, as the alert
 * here reports the list (learned from zeek/zeek `scripts/base/frameworks/intel/main.zeek`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { ipv4Bits } from '../net/address.js';
import { tryParseAddress } from '../net/cidr.js';

/** Where a match came from: the list (file name) and the entry as the list spelled it (normalised). */
export interface IntelEntry {
  list: string;
  entry: string;
}

/** What loading one list found. */
export interface IntelListStats {
  /** The file's name (not path): what alerts show as `list`. */
  list: string;
  file: string;
  addresses: number;
  names: number;
  /** Lines skipped as malformed. */
  malformed: number;
  /** The first malformed line's number (1-based), or null. */
  firstMalformedLine: number | null;
}

/** Any prefix a list holds is taken (down to /1); /0 would list every address and counts as malformed. */
const LIST_MIN_PREFIX = { 4: 1, 6: 1 } as const;
/** Names in hosts files that are the machine itself, not a listed host. */
const HOSTS_SELF = new Set([
  'localhost',
  'localhost.localdomain',
  'local',
  'broadcasthost',
  'ip6-localhost',
  'ip6-loopback',
  'ip6-localnet',
  'ip6-mcastprefix',
  'ip6-allnodes',
  'ip6-allrouters',
  'ip6-allhosts',
  '0.0.0.0',
]);
const DNS_NAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)+$/;

/**
 * A name as the index keys it (lower case, no trailing dot, no `*.`), or null when it is not a DNS name with a dot and
 * a top-level label that is not all digits.
 */
function normaliseName(text: string): string | null {
  let n = text.toLowerCase();
  if (n.endsWith('.')) n = n.slice(0, -1);
  if (n.startsWith('*.')) n = n.slice(2);
  // A last label of digits only is a mistyped address (`300.1.2.3`), not a name.
  return DNS_NAME.test(n) && !/\.\d+$/.test(n) ? n : null;
}

/** The index of every loaded list. */
export class ThreatIntelIndex {
  /** IPv4: prefix length -> network (the address's top `len` bits as a number) -> entry. */
  private readonly v4 = new Map<number, Map<number, IntelEntry>>();
  private v4Lengths: number[] = [];
  /** IPv6: prefix length -> network (top `len` bits) -> entry. */
  private readonly v6 = new Map<number, Map<bigint, IntelEntry>>();
  private v6Lengths: number[] = [];
  private readonly names = new Map<string, IntelEntry>();
  readonly lists: IntelListStats[] = [];

  /** Addresses/prefixes and names held. */
  get size(): { addresses: number; names: number } {
    let addresses = 0;
    for (const m of this.v4.values()) addresses += m.size;
    for (const m of this.v6.values()) addresses += m.size;
    return { addresses, names: this.names.size };
  }

  get empty(): boolean {
    return this.v4.size === 0 && this.v6.size === 0 && this.names.size === 0;
  }

  /** Adds an address or prefix; false when `text` is not one. The first list to list a network keeps it. */
  addAddress(text: string, list: string): boolean {
    const a = tryParseAddress(text, { minPrefix: LIST_MIN_PREFIX });
    if (a === null) return false;
    const entry = { list, entry: a.key };
    if (a.family === 4) {
      let m = this.v4.get(a.prefix);
      if (!m) {
        this.v4.set(a.prefix, (m = new Map()));
        this.v4Lengths = [...this.v4.keys()].sort((x, y) => y - x);
      }
      const net = Math.floor(Number(a.first) / 2 ** (32 - a.prefix));
      if (!m.has(net)) m.set(net, entry);
    } else {
      let m = this.v6.get(a.prefix);
      if (!m) {
        this.v6.set(a.prefix, (m = new Map()));
        this.v6Lengths = [...this.v6.keys()].sort((x, y) => y - x);
      }
      const net = a.first >> BigInt(128 - a.prefix);
      if (!m.has(net)) m.set(net, entry);
    }
    return true;
  }

  /** Adds a domain name (it matches its subdomains too); false when `text` is not a DNS name with a dot. */
  addName(text: string, list: string): boolean {
    const n = normaliseName(text);
    if (n === null) return false;
    if (!this.names.has(n)) this.names.set(n, { list, entry: n });
    return true;
  }

  /** The most specific entry whose network holds `ip` (a flow address), or null. */
  matchAddress(ip: string): IntelEntry | null {
    if (ip.indexOf(':') === -1) {
      if (this.v4Lengths.length === 0) return null;
      const bits = ipv4Bits(ip);
      for (const len of this.v4Lengths) {
        const hit = this.v4.get(len)!.get(Math.floor(bits / 2 ** (32 - len)));
        if (hit) return hit;
      }
      return null;
    }
    if (this.v6Lengths.length === 0) return null;
    const a = tryParseAddress(ip, { minPrefix: { 4: 0, 6: 0 } });
    if (a === null) return null;
    if (a.family === 4) return this.matchAddress(a.address);
    for (const len of this.v6Lengths) {
      const hit = this.v6.get(len)!.get(a.first >> BigInt(128 - len));
      if (hit) return hit;
    }
    return null;
  }

  /** The entry listing `name` or its nearest listed parent domain, or null. */
  matchName(name: string): IntelEntry | null {
    if (this.names.size === 0 || name.length === 0) return null;
    let n = name.toLowerCase();
    if (n.endsWith('.')) n = n.slice(0, -1);
    for (;;) {
      const hit = this.names.get(n);
      if (hit) return hit;
      const dot = n.indexOf('.');
      if (dot === -1) return null;
      n = n.slice(dot + 1);
    }
  }

  /** Parses one list's text into the index (see the module comment); returns what it found. */
  addList(file: string, text: string): IntelListStats {
    const list = path.basename(file);
    const stats: IntelListStats = { list, file, addresses: 0, names: 0, malformed: 0, firstMalformedLine: null };
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const kind = this.addLine(lines[i]!, list);
      if (kind === 'address') stats.addresses++;
      else if (kind === 'names') stats.names++;
      else if (kind === 'malformed') {
        stats.malformed++;
        stats.firstMalformedLine ??= i + 1;
      }
    }
    this.lists.push(stats);
    return stats;
  }

  private addLine(raw: string, list: string): 'address' | 'names' | 'blank' | 'malformed' {
    let line = raw;
    const hash = line.indexOf('#');
    if (hash !== -1) line = line.slice(0, hash);
    const semi = line.indexOf(';');
    if (semi !== -1) line = line.slice(0, semi);
    const tokens = line
      .trim()
      .split(/\s+/)
      .filter((t) => t.length > 0);
    if (tokens.length === 0) return 'blank';
    const first = tokens[0]!;
    if (first === 'create' || first === 'flush' || first === 'destroy') return 'blank';
    if (first === 'add') return tokens.length >= 3 && this.addAddress(tokens[2]!, list) ? 'address' : 'malformed';
    if (tokens.length === 1) {
      if (this.addAddress(first, list)) return 'address';
      return this.addName(first, list) ? 'names' : 'malformed';
    }
    // A hosts line: a sink address, then names.
    if (tryParseAddress(first, { minPrefix: { 4: 0, 6: 0 } }) === null && first !== '0.0.0.0' && first !== '::') return 'malformed';
    let added = 0;
    let bad = 0;
    for (const name of tokens.slice(1)) {
      if (HOSTS_SELF.has(name.toLowerCase())) continue;
      if (this.addName(name, list)) added++;
      else bad++;
    }
    if (bad > 0 && added === 0) return 'malformed';
    return added > 0 ? 'names' : 'blank';
  }
}

/** The first line (1-based) of `buf` holding a NUL byte or invalid UTF-8, or 0 when it is text. */
function firstBinaryLine(buf: Buffer): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let line = 1;
  let start = 0;
  for (let i = 0; i <= buf.length; i++) {
    if (i < buf.length && buf[i] !== 0x0a) {
      if (buf[i] === 0) return line;
      continue;
    }
    try {
      decoder.decode(buf.subarray(start, i));
    } catch {
      return line;
    }
    line++;
    start = i + 1;
  }
  return 0;
}

/**
 * Loads every file of `files` (`VIGIL_INTEL_FILES`) into one index. Throws ConfigError naming `VIGIL_INTEL_FILES`,
 * the file and, for a file that is not text, the line, when a file cannot be read.
 */
export function loadThreatIntel(files: readonly string[]): ThreatIntelIndex {
  const index = new ThreatIntelIndex();
  for (const file of files) {
    let buf: Buffer;
    try {
      buf = readFileSync(file);
    } catch (err) {
      throw new ConfigError('VIGIL_INTEL_FILES', `cannot read threat list ${file}: ${(err as Error).message}`);
    }
    const bad = firstBinaryLine(buf);
    if (bad > 0) throw new ConfigError('VIGIL_INTEL_FILES', `threat list ${file} line ${bad} is not text (a NUL byte or invalid UTF-8): give a text list`);
    index.addList(file, buf.toString('utf8'));
  }
  return index;
}
