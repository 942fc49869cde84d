/**
 * DnsNameCache tests through the real C++ (test-only `_dnsCacheTest`): per-client names with the any-client
 * fallback, TTL expiry with its grace, least-recently-used eviction counted in stats, and the bounds.
 * A capacity of 8 is one bucket of 8 ways, so eviction order does not depend on the hash seed.
 */
import { expect } from 'chai';

import type { Binding } from '../../../binding.js';
import { loadBinding } from '../../../src/native/load.js';

const addon = loadBinding();
const run = (capacity: number, ops: Binding.DnsCacheOp[]): Binding.DnsCacheTestResult => addon._dnsCacheTest(capacity, ops);

const GRACE_S = 300;
const insert = (client: string, addr: string, name: string, ttl: number, ts: number): Binding.DnsCacheOp => ({ op: 'insert', client, addr, name, ttl, ts });
const lookup = (client: string, addr: string, ts: number): Binding.DnsCacheOp => ({ op: 'lookup', client, addr, ts });

const A = '192.168.1.10';
const B = '192.168.1.20';
const C = '192.168.1.30';

describe('DnsNameCache (native/app/dns_cache.cpp)', () => {
  it('returns the name the client resolved, falls back to any client, and misses unknown addresses', () => {
    const r = run(8, [
      insert(A, '93.184.216.34', 'example.com', 60, 0),
      lookup(A, '93.184.216.34', 1),
      lookup(B, '93.184.216.34', 1), // another host reaching the same address
      lookup(A, '93.184.216.35', 1),
    ]);
    expect(r.results).to.deep.equal(['example.com', 'example.com', null]);
    expect(r.stats).to.deep.equal({ inserts: 1, hits: 2, misses: 1, evictions: 0 });
  });

  it("prefers the client's own answer when clients resolved the address to different names", () => {
    const r = run(8, [
      insert(A, '151.101.1.1', 'a.example', 300, 0),
      insert(B, '151.101.1.1', 'b.example', 300, 5),
      lookup(A, '151.101.1.1', 10),
      lookup(B, '151.101.1.1', 10),
      lookup(C, '151.101.1.1', 10), // any client: the latest answer
    ]);
    expect(r.results).to.deep.equal(['a.example', 'b.example', 'b.example']);
  });

  it('keys IPv6 clients and addresses', () => {
    const r = run(8, [
      insert('fe80::1', '2001:db8::53', 'v6.example', 60, 0),
      lookup('fe80::1', '2001:db8::53', 1),
      lookup('fe80::1', '::ffff:32.1.13.184', 1),
    ]);
    expect(r.results).to.deep.equal(['v6.example', null]);
  });

  it('keeps an entry for its TTL plus a grace of max(TTL, 300 s), then forgets it', () => {
    const r = run(8, [
      insert(A, '10.0.0.1', 'short.example', 60, 1000),
      lookup(A, '10.0.0.1', 1000 + 60 + GRACE_S),
      lookup(A, '10.0.0.1', 1000 + 60 + GRACE_S + 0.001),
      lookup(B, '10.0.0.1', 1000 + 60 + GRACE_S + 0.001), // the fallback honours expiry too
      insert(A, '10.0.0.2', 'long.example', 3600, 1000),
      lookup(A, '10.0.0.2', 1000 + 2 * 3600),
      lookup(A, '10.0.0.2', 1000 + 2 * 3600 + 1),
      insert(A, '10.0.0.3', 'negative.example', 0x80000000, 1000), // top bit set: TTL 0 (RFC 2181)
      lookup(A, '10.0.0.3', 1000 + GRACE_S),
      lookup(A, '10.0.0.3', 1000 + GRACE_S + 1),
    ]);
    expect(r.results).to.deep.equal(['short.example', null, null, 'long.example', null, 'negative.example', null]);
  });

  it('replaces the name of an existing (client, address) without an eviction', () => {
    const r = run(8, [insert(A, '10.0.0.1', 'old.example', 60, 0), insert(A, '10.0.0.1', 'new.example', 60, 1), lookup(A, '10.0.0.1', 2)]);
    expect(r.results).to.deep.equal(['new.example']);
    expect(r.stats).to.include({ inserts: 2, evictions: 0 });
  });

  it('evicts the least recently used entry when full and counts it', () => {
    const ops: Binding.DnsCacheOp[] = [];
    for (let i = 1; i <= 8; i++) ops.push(insert(A, `10.0.0.${i}`, `host${i}.example`, 3600, i));
    ops.push(lookup(A, '10.0.0.1', 20)); // host1 used again: host2 is now the least recent
    ops.push(insert(A, '10.0.0.9', 'host9.example', 3600, 21));
    ops.push(lookup(A, '10.0.0.1', 22), lookup(A, '10.0.0.2', 22), lookup(B, '10.0.0.2', 22), lookup(A, '10.0.0.9', 22), lookup(B, '10.0.0.9', 22));
    const r = run(8, ops);
    expect(r.results).to.deep.equal(['host1.example', 'host1.example', null, null, 'host9.example', 'host9.example']);
    expect(r.stats).to.deep.equal({ inserts: 9, hits: 4, misses: 2, evictions: 1 });
    expect(r.capacity).to.equal(8);
  });

  it('reuses expired entries before evicting live ones (no eviction counted)', () => {
    const ops: Binding.DnsCacheOp[] = [];
    for (let i = 1; i <= 8; i++) ops.push(insert(A, `10.0.0.${i}`, `host${i}.example`, 0, 0));
    ops.push(insert(A, '10.0.1.1', 'later.example', 60, GRACE_S + 1), lookup(A, '10.0.1.1', GRACE_S + 2));
    const r = run(8, ops);
    expect(r.results).to.deep.equal(['later.example']);
    expect(r.stats.evictions).to.equal(0);
  });

  it('holds at most its capacity: 100 answers into 8 entries evict 92', () => {
    const ops: Binding.DnsCacheOp[] = [];
    for (let i = 0; i < 100; i++) ops.push(insert(A, `10.1.0.${i}`, `n${i}.example`, 3600, i));
    for (let i = 0; i < 100; i++) ops.push(lookup(A, `10.1.0.${i}`, 200));
    const r = run(8, ops);
    expect(r.stats.evictions).to.equal(92);
    expect(r.results.filter((x) => x !== null)).to.deep.equal([92, 93, 94, 95, 96, 97, 98, 99].map((i) => `n${i}.example`));
  });

  it('sizes a large table in 8-way buckets and keeps a thousand names without eviction', () => {
    const ops: Binding.DnsCacheOp[] = [];
    for (let i = 0; i < 1000; i++) ops.push(insert(A, `10.2.${i >> 8}.${i & 255}`, `n${i}.example`, 3600, 0));
    for (let i = 0; i < 1000; i++) ops.push(lookup(A, `10.2.${i >> 8}.${i & 255}`, 1));
    const r = run(65536, ops);
    expect(r.capacity).to.equal(65536);
    expect(r.stats).to.deep.equal({ inserts: 1000, hits: 1000, misses: 0, evictions: 0 });
    expect(r.results[999]).to.equal('n999.example');
    expect(run(100, [insert(A, B, 'x', 1, 0)]).capacity).to.equal(64); // 100 / 8 -> 8 buckets (a power of two)
    expect(run(3, [insert(A, B, 'x', 1, 0)]).capacity).to.equal(3); // one bucket of 3 ways
  });

  it('is off with capacity 0', () => {
    const r = run(0, [insert(A, B, 'x.example', 60, 0), lookup(A, B, 1)]);
    expect(r.results).to.deep.equal([null]);
    expect(r.stats).to.deep.equal({ inserts: 0, hits: 0, misses: 1, evictions: 0 });
  });
});
