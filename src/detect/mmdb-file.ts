/**
 * A MaxMind DB (MMDB, https://maxmind.github.io/MaxMind-DB/) read from its file on demand: a lookup reads the search
 * tree's nodes and the record's bytes through a small page cache instead of holding the whole file in memory (DB-IP's
 * city databases are 63 MB for IPv4 and 71 MB for IPv6; loading them made a sensor's memory grow by that much the
 * first time a threat of each family was located). Lookups are synchronous file reads of a few 4 KiB pages.
 *
 * The cached pages are slots of one buffer allocated up front, each with its view made once: a page read fills a free
 * (or the least recently used) slot in place, and a search tree step reads its node's bytes straight from the page, so
 * a lookup allocates no Buffer per page or per step (a lookup walks up to 128 nodes).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { isIPv4 } from 'node:net';
import { ipv4Bits } from '../net/address.js';
import { tryParseAddress, type ParsedAddress } from '../net/cidr.js';

const PAGE_BYTES = 4096;
/** Pages kept (LRU): 1 MiB, the top of the search tree and the most used records. */
const MAX_PAGES = 256;
/** The metadata starts after the last occurrence of this marker, within the file's last 128 KiB. */
const METADATA_MARKER = Buffer.from([0xab, 0xcd, 0xef, ...Buffer.from('MaxMind.com')]);
const METADATA_MAX_BYTES = 128 * 1024;
/** Bytes between the search tree and the data section. */
const DATA_SECTION_SEPARATOR = 16;

/** A decoded MMDB value. */
export type MmdbValue = string | number | bigint | boolean | Buffer | MmdbValue[] | { [key: string]: MmdbValue };

/** What a database says about itself (the fields a lookup needs). */
export interface MmdbMetadata {
  nodeCount: number;
  recordSize: number;
  ipVersion: number;
  databaseType: string;
}

/** An open database. Not thread-safe; one instance per file. */
export class MmdbFile {
  readonly metadata: MmdbMetadata;
  private readonly fd: number;
  private readonly size: number;
  /** Page index -> slot in {@link slots}, least recently used first. */
  private readonly pages = new Map<number, number>();
  /** MAX_PAGES views of PAGE_BYTES each of one buffer: the page cache's storage. */
  private readonly slots: Buffer[];
  /** The page used last (already at the end of the LRU order), or -1, and its slot. */
  private lastPage = -1;
  private lastSlot = 0;
  private readonly nodeBytes: number;
  private readonly dataStart: number;
  private ipv4Start = -1;
  /** The offset after the value {@link decode} returned last. */
  private end = 0;

  /** Opens `file` and reads its metadata; throws when it is not a MaxMind DB. */
  constructor(file: string) {
    const slab = Buffer.allocUnsafeSlow(MAX_PAGES * PAGE_BYTES);
    this.slots = Array.from({ length: MAX_PAGES }, (_, i) => slab.subarray(i * PAGE_BYTES, (i + 1) * PAGE_BYTES));
    this.fd = openSync(file, 'r');
    try {
      this.size = fstatSync(this.fd).size;
      const tailStart = Math.max(0, this.size - METADATA_MAX_BYTES);
      const tail = this.read(tailStart, this.size - tailStart);
      const at = tail.lastIndexOf(METADATA_MARKER);
      if (at < 0) throw new Error(`${file} is not a MaxMind DB (no metadata marker)`);
      const metaStart = tailStart + at + METADATA_MARKER.length;
      const meta = this.decode(metaStart, metaStart);
      const m = meta as Record<string, MmdbValue>;
      const num = (k: string): number => {
        const v = m[k];
        if (typeof v !== 'number') throw new Error(`${file}: metadata ${k} is not a number`);
        return v;
      };
      this.metadata = { nodeCount: num('node_count'), recordSize: num('record_size'), ipVersion: num('ip_version'), databaseType: String(m.database_type) };
      if (![24, 28, 32].includes(this.metadata.recordSize)) throw new Error(`${file}: unsupported record size ${this.metadata.recordSize}`);
      this.nodeBytes = (this.metadata.recordSize * 2) / 8;
      this.dataStart = this.metadata.nodeCount * this.nodeBytes + DATA_SECTION_SEPARATOR;
    } catch (err) {
      closeSync(this.fd);
      throw err;
    }
  }

  /** Closes the file. */
  close(): void {
    closeSync(this.fd);
    this.pages.clear();
    this.lastPage = -1;
  }

  /** The record of the network holding `ip` (IPv4 or IPv6 text), or null when the database has none. */
  get(ip: string): MmdbValue | null {
    const v4 = isIPv4(ip);
    const parsed = v4 ? null : tryParseAddress(ip);
    if (!v4 && (parsed === null || parsed.family !== 6 || parsed.prefix !== 128)) throw new TypeError(`not an IPv4 or IPv6 address: ${ip}`);
    // The address as 128 bits (IPv4 in the low 32).
    const bytes = new Uint8Array(16);
    if (v4) {
      const bits = ipv4Bits(ip);
      for (let i = 15, x = bits; i >= 12; i--, x = Math.floor(x / 256)) bytes[i] = x % 256;
    } else {
      for (let i = 15, x = (parsed as ParsedAddress).first; i >= 0; i--, x >>= 8n) bytes[i] = Number(x & 0xffn);
    }
    const { nodeCount, ipVersion } = this.metadata;
    let node: number;
    let firstBit: number;
    if (v4) {
      node = ipVersion === 6 ? this.ipv4StartNode() : 0;
      firstBit = 96;
    } else {
      if (ipVersion === 4) return null;
      node = 0;
      firstBit = 0;
    }
    for (let bit = firstBit; bit < 128 && node < nodeCount; bit++) {
      const b = ((bytes[bit >> 3] as number) >> (7 - (bit & 7))) & 1;
      node = this.record(node, b);
    }
    if (node === nodeCount) return null;
    if (node < nodeCount) throw new Error('MaxMind DB: search tree deeper than the address');
    const offset = this.dataStart + (node - nodeCount - DATA_SECTION_SEPARATOR);
    return this.decode(offset, this.dataStart);
  }

  /** The node IPv4 addresses start from in an IPv6 tree (96 zero bits down from the root). */
  private ipv4StartNode(): number {
    if (this.ipv4Start < 0) {
      let node = 0;
      for (let i = 0; i < 96 && node < this.metadata.nodeCount; i++) node = this.record(node, 0);
      this.ipv4Start = node;
    }
    return this.ipv4Start;
  }

  /** The left (0) or right (1) record of `node`. */
  private record(node: number, side: number): number {
    // The node's bytes: in its cached page when they lie in one (the common case: no Buffer made), else a copy.
    const offset = node * this.nodeBytes;
    const page = this.pageHolding(offset, this.nodeBytes);
    const b = page ?? this.read(offset, this.nodeBytes);
    const o = page ? offset % PAGE_BYTES : 0;
    switch (this.metadata.recordSize) {
      case 24:
        return side === 0 ? b.readUIntBE(o, 3) : b.readUIntBE(o + 3, 3);
      case 28:
        return side === 0 ? ((b[o + 3] as number) >> 4) * 0x1000000 + b.readUIntBE(o, 3) : ((b[o + 3] as number) & 0x0f) * 0x1000000 + b.readUIntBE(o + 4, 3);
      default:
        return side === 0 ? b.readUInt32BE(o) : b.readUInt32BE(o + 4);
    }
  }

  /**
   * The value at `offset`; pointers are relative to `base` (the data section's start). The offset after the value is
   * left in {@link end}: a field rather than a [value, offset] pair per value, as pairs made at a dozen literal sites
   * hold different element kinds (small integers, doubles, objects), which makes the reads of them polymorphic (with
   * `node --trace-deopt`, a "wrong map" deoptimisation of decode in a measured pipeline run, when a record held a kind
   * the warm-up had not met) and costs an array per value.
   */
  private decode(offset: number, base: number): MmdbValue {
    const ctrl = this.byte(offset++);
    let type = ctrl >> 5;
    if (type === 1) {
      // Pointer: 3 bits of the control byte plus 1-4 bytes.
      const ss = (ctrl >> 3) & 3;
      const vvv = ctrl & 7;
      let p: number;
      if (ss === 0) p = vvv * 0x100 + this.byte(offset);
      else if (ss === 1) p = vvv * 0x10000 + this.uintBE(offset, 2) + 2048;
      else if (ss === 2) p = vvv * 0x1000000 + this.uintBE(offset, 3) + 526336;
      else p = this.uintBE(offset, 4);
      return this.ended(this.decode(base + p, base), offset + ss + 1);
    }
    if (type === 0) type = 7 + this.byte(offset++);
    let size = ctrl & 0x1f;
    if (size === 29) size = 29 + this.byte(offset++);
    else if (size === 30) {
      size = 285 + this.uintBE(offset, 2);
      offset += 2;
    } else if (size === 31) {
      size = 65821 + this.uintBE(offset, 3);
      offset += 3;
    }
    switch (type) {
      case 2: {
        if (size === 0) return this.ended('', offset);
        const page = this.pageHolding(offset, size);
        const o = offset % PAGE_BYTES;
        return this.ended(page ? page.toString('utf8', o, o + size) : this.read(offset, size).toString('utf8'), offset + size);
      }
      case 3: {
        const page = this.pageHolding(offset, 8);
        return this.ended(page ? page.readDoubleBE(offset % PAGE_BYTES) : this.read(offset, 8).readDoubleBE(0), offset + 8);
      }
      case 4:
        return this.ended(Buffer.from(this.read(offset, size)), offset + size);
      case 5:
      case 6:
        return this.ended(size <= 6 ? this.uintBE(offset, size) : this.read(offset, size).readUIntBE(0, size), offset + size);
      case 8:
        return this.ended(size === 0 ? 0 : this.read(offset, size).readIntBE(0, size), offset + size);
      case 9:
      case 10: {
        let v = 0n;
        const b = this.read(offset, size);
        for (const x of b) v = (v << 8n) | BigInt(x);
        return this.ended(v, offset + size);
      }
      case 7: {
        const out: { [key: string]: MmdbValue } = {};
        for (let i = 0; i < size; i++) {
          const k = this.decode(offset, base);
          const v = this.decode(this.end, base);
          out[String(k)] = v;
          offset = this.end;
        }
        return this.ended(out, offset);
      }
      case 11: {
        const out: MmdbValue[] = [];
        for (let i = 0; i < size; i++) {
          out.push(this.decode(offset, base));
          offset = this.end;
        }
        return this.ended(out, offset);
      }
      case 14:
        return this.ended(size !== 0, offset);
      case 15:
        return this.ended(this.read(offset, 4).readFloatBE(0), offset + 4);
      default:
        throw new Error(`MaxMind DB: unsupported data type ${type} at ${offset}`);
    }
  }
  /** `value`, having set {@link end} to `end` (see {@link decode}). */
  private ended(value: MmdbValue, end: number): MmdbValue {
    this.end = end;
    return value;
  }

  /** The unsigned big-endian integer in the `length` (0 to 6) bytes at `offset`, read byte by byte (no Buffer made). */
  private uintBE(offset: number, length: number): number {
    let v = 0;
    for (let i = 0; i < length; i++) v = v * 256 + this.byte(offset + i);
    return v;
  }

  private byte(offset: number): number {
    this.checkSpan(offset, 1);
    return this.page(Math.floor(offset / PAGE_BYTES))[offset % PAGE_BYTES] as number;
  }

  private checkSpan(offset: number, length: number): void {
    if (offset < 0 || offset + length > this.size) throw new RangeError(`MaxMind DB: read of ${length} bytes at ${offset} is outside the file`);
  }

  /** The cached page holding the `length` (> 0) bytes at `offset` (at `offset % PAGE_BYTES` in it), or null when they span two pages. */
  private pageHolding(offset: number, length: number): Buffer | null {
    this.checkSpan(offset, length);
    const index = Math.floor(offset / PAGE_BYTES);
    return index === Math.floor((offset + length - 1) / PAGE_BYTES) ? this.page(index) : null;
  }

  /** `length` bytes at `offset` (a view of a cached page when they lie in one page, else a copy). */
  private read(offset: number, length: number): Buffer {
    this.checkSpan(offset, length);
    const first = Math.floor(offset / PAGE_BYTES);
    const last = Math.floor((offset + length - 1) / PAGE_BYTES);
    if (length > 0 && first === last) {
      const start = offset - first * PAGE_BYTES;
      return this.page(first).subarray(start, start + length);
    }
    const out = Buffer.alloc(length);
    if (length > PAGE_BYTES * 4) {
      readSync(this.fd, out, 0, length, offset);
      return out;
    }
    for (let p = first, at = 0; p <= last; p++) {
      const page = this.page(p);
      const from = p === first ? offset - first * PAGE_BYTES : 0;
      const n = Math.min(page.length - from, length - at);
      page.copy(out, at, from, from + n);
      at += n;
    }
    return out;
  }

  /**
   * Page `index` (its slot's view: PAGE_BYTES long, of which the file's last page fills only the start; callers read
   * only within the file, see {@link checkSpan}), read into a free or the least recently used slot on a miss.
   */
  private page(index: number): Buffer {
    if (index === this.lastPage) return this.slots[this.lastSlot] as Buffer;
    let slot = this.pages.get(index);
    if (slot !== undefined) {
      this.pages.delete(index);
    } else {
      if (this.pages.size < MAX_PAGES) slot = this.pages.size;
      else {
        const oldest = this.pages.keys().next().value as number;
        slot = this.pages.get(oldest) as number;
        this.pages.delete(oldest);
      }
      const start = index * PAGE_BYTES;
      readSync(this.fd, this.slots[slot] as Buffer, 0, Math.min(PAGE_BYTES, this.size - start), start);
    }
    this.pages.set(index, slot);
    this.lastPage = index;
    this.lastSlot = slot;
    return this.slots[slot] as Buffer;
  }
}
