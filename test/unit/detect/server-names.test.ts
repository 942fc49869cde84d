import { expect } from 'chai';
import type { Finding } from '../../../src/detect/finding.js';
import { MAX_ALERT_NAMES, mergeNames, normaliseName, parseNames, ServerNameIndex } from '../../../src/detect/server-names.js';
import { makeFlow } from './flow-factory.js';

function finding(over: Partial<Finding>): Finding {
  return {
    category: 'beaconing',
    source: 'rule',
    severity: 'medium',
    score: 0.7,
    srcIp: '192.168.1.10',
    srcPort: null,
    dstIp: '203.0.113.9',
    dstPort: 443,
    protocol: 6,
    target: '203.0.113.9:443/6',
    threatIp: '203.0.113.9',
    title: 't',
    description: 'd',
    count: 1,
    firstSeenMs: 0,
    lastSeenMs: 0,
    details: {},
    ...over,
  };
}

describe('detect/server-names', () => {
  it('normaliseName(): lower case, no trailing dot, at most 255 characters; empty is none', () => {
    expect(normaliseName('WWW.Example.COM.')).to.equal('www.example.com');
    expect(normaliseName('a'.repeat(300))).to.have.length(255);
    expect(normaliseName('')).to.equal(null);
    expect(normaliseName('.')).to.equal(null);
    expect(normaliseName(null)).to.equal(null);
    expect(normaliseName(undefined)).to.equal(null);
  });

  it('mergeNames(): deduplicated, first ones kept, bounded', () => {
    expect(mergeNames(['a', 'b'], ['b', 'c', 'a', 'd'], 3)).to.deep.equal(['a', 'b', 'c']);
    expect(mergeNames([], undefined, 3)).to.deep.equal([]);
    expect(mergeNames(['a', 'b', 'c', 'd'], ['e'], 2)).to.deep.equal(['a', 'b']);
  });

  it('parseNames(): a JSON array of strings, anything else none', () => {
    expect(parseNames('["a","b"]')).to.deep.equal(['a', 'b']);
    expect(parseNames('["a",1,null]')).to.deep.equal(['a']);
    expect(parseNames('{"a":1}')).to.deep.equal([]);
    expect(parseNames('not json')).to.deep.equal([]);
    expect(parseNames('')).to.deep.equal([]);
  });

  it('ServerNameIndex: names per pair (either direction) and per server address; annotate() sets both on a finding', () => {
    const idx = new ServerNameIndex();
    idx.observe([
      makeFlow({ srcIp: '192.168.1.10', dstIp: '203.0.113.9', serverName: 'C2.Example.NET' }),
      makeFlow({ srcIp: '192.168.1.10', dstIp: '203.0.113.9', serverName: 'c2.example.net' }),
      makeFlow({ srcIp: '192.168.1.11', dstIp: '203.0.113.9', serverName: 'cdn.example.org' }),
      makeFlow({ srcIp: '192.168.1.10', dstIp: '198.51.100.1', serverName: null }),
    ]);
    expect(idx.namesOfPair('203.0.113.9', '192.168.1.10')).to.deep.equal(['c2.example.net']);
    expect(idx.namesOf('203.0.113.9')).to.deep.equal(['c2.example.net', 'cdn.example.org']);
    expect(idx.namesOf('192.168.1.10')).to.deep.equal([]);
    expect(idx.size).to.deep.equal({ pairs: 2, servers: 1 });

    const f = finding({});
    idx.annotate(f);
    expect(f.serverNames).to.deep.equal(['c2.example.net']);
    expect(f.threatServerNames).to.deep.equal(['c2.example.net', 'cdn.example.org']);
    // The scanner (the threat is the client): no names of its own; a horizontal scan has no single destination.
    const scan = finding({ srcIp: '192.168.1.10', dstIp: null, threatIp: '192.168.1.10' });
    idx.annotate(scan);
    expect(scan.serverNames).to.equal(undefined);
    expect(scan.threatServerNames).to.equal(undefined);
  });

  it('ServerNameIndex is bounded: the least recently seen pairs and addresses go, each keeps its newest names', () => {
    const idx = new ServerNameIndex(3);
    for (let i = 0; i < 5; i++) idx.observe([makeFlow({ srcIp: '10.0.0.1', dstIp: `203.0.113.${i}`, serverName: `h${i}.example` })]);
    expect(idx.size).to.deep.equal({ pairs: 3, servers: 3 });
    expect(idx.namesOf('203.0.113.0')).to.deep.equal([]);
    expect(idx.namesOf('203.0.113.4')).to.deep.equal(['h4.example']);
    const flows = Array.from({ length: MAX_ALERT_NAMES + 3 }, (_, i) => makeFlow({ srcIp: '10.0.0.1', dstIp: '203.0.113.4', serverName: `n${i}.example` }));
    idx.observe(flows);
    const names = idx.namesOf('203.0.113.4');
    expect(names).to.have.length(MAX_ALERT_NAMES);
    expect(names.at(-1)).to.equal(`n${MAX_ALERT_NAMES + 2}.example`);
  });

  it('ServerNameIndex keys IPv4, IPv6 and mixed pairs apart, with one use order across them', () => {
    const idx = new ServerNameIndex(2);
    idx.observe([
      makeFlow({ srcIp: '2001:db8::1', dstIp: '10.0.0.9', serverName: 'mixed.example' }),
      makeFlow({ srcIp: '10.0.0.1', dstIp: '2001:db8::9', serverName: 'six.example' }),
      // Not a canonical dotted quad: kept under its text, never equal to 10.0.0.9.
      makeFlow({ srcIp: '10.0.0.1', dstIp: '010.0.0.9', serverName: 'odd.example' }),
    ]);
    // The first pair and address were the least recently seen: gone (IPv4 and text keys share one order).
    expect(idx.size).to.deep.equal({ pairs: 2, servers: 2 });
    expect(idx.namesOfPair('10.0.0.9', '2001:db8::1')).to.deep.equal([]);
    expect(idx.namesOf('10.0.0.9')).to.deep.equal([]);
    expect(idx.namesOfPair('2001:db8::9', '10.0.0.1')).to.deep.equal(['six.example']);
    expect(idx.namesOf('2001:db8::9')).to.deep.equal(['six.example']);
    expect(idx.namesOfPair('10.0.0.1', '010.0.0.9')).to.deep.equal(['odd.example']);
    expect(idx.namesOf('010.0.0.9')).to.deep.equal(['odd.example']);
    idx.observe([makeFlow({ srcIp: '10.0.0.9', dstIp: '10.0.0.1', serverName: 'four.example' })]);
    expect(idx.namesOfPair('10.0.0.1', '10.0.0.9')).to.deep.equal(['four.example']);
    expect(idx.namesOf('10.0.0.1')).to.deep.equal(['four.example']);
    expect(idx.namesOf('10.0.0.9')).to.deep.equal([]);
  });
});
