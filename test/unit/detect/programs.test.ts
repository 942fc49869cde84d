import { expect } from 'chai';
import type { Finding } from '../../../src/detect/finding.js';
import { MAX_ALERT_PROGRAMS, mergePrograms, parsePrograms, ProgramIndex, programOfFlow, programsColumn } from '../../../src/detect/programs.js';
import type { FlowProcess } from '../../../src/native/flow-record.js';
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

const proc = (pid: number, name: string | null, exe: string | null): FlowProcess => ({ pid, name, exe, user: 'bob', uid: 1001, unit: null, container: null });
const ref = (pid: number, name: string | null, exe: string | null) => ({ pid, name, exe, user: 'bob' });

describe('detect/programs', () => {
  it('programOfFlow(): name, executable, pid and user of the flow; null without a process', () => {
    expect(programOfFlow(makeFlow({ process: proc(7, 'curl', '/usr/bin/curl') }))).to.deep.equal(ref(7, 'curl', '/usr/bin/curl'));
    expect(programOfFlow(makeFlow({ process: null }))).to.equal(null);
    expect(programOfFlow(makeFlow({}))).to.equal(null);
  });

  it('mergePrograms(): one entry per executable (else name), first ones kept, bounded', () => {
    const a = [ref(1, 'firefox', '/usr/lib/firefox/firefox')];
    const b = [ref(2, 'Web Content', '/usr/lib/firefox/firefox'), ref(3, 'curl', '/usr/bin/curl'), ref(4, 'x', null), ref(5, 'x', null), ref(6, 'y', null)];
    expect(mergePrograms(a, b, 3).map((p) => p.pid)).to.deep.equal([1, 3, 4]);
    expect(mergePrograms([], undefined, 3)).to.deep.equal([]);
  });

  it('parsePrograms(): a JSON array of program objects, anything else none; programsColumn() rewrites only on news', () => {
    expect(parsePrograms('[{"pid":1,"name":"a","exe":"/a","user":null}]')).to.deep.equal([{ pid: 1, name: 'a', exe: '/a', user: null }]);
    expect(parsePrograms('[{"name":"no pid"},7,null,{"pid":2,"name":3}]')).to.deep.equal([{ pid: 2, name: null, exe: null, user: null }]);
    expect(parsePrograms('{"pid":1}')).to.deep.equal([]);
    expect(parsePrograms('not json')).to.deep.equal([]);
    expect(parsePrograms('')).to.deep.equal([]);
    const column = JSON.stringify([ref(1, 'curl', '/usr/bin/curl')]);
    expect(programsColumn(column, [ref(9, 'curl', '/usr/bin/curl')], 5)).to.equal(column);
    expect(parsePrograms(programsColumn(column, [ref(9, 'wget', '/usr/bin/wget')], 5)).map((p) => p.exe)).to.deep.equal(['/usr/bin/curl', '/usr/bin/wget']);
  });

  it('ProgramIndex: programs per pair (either direction) and per address; annotate() sets both on a finding', () => {
    const idx = new ProgramIndex();
    idx.observe([
      makeFlow({ srcIp: '192.168.1.10', dstIp: '203.0.113.9', process: proc(7, 'curl', '/usr/bin/curl') }),
      makeFlow({ srcIp: '203.0.113.9', dstIp: '192.168.1.10', process: proc(8, 'curl', '/usr/bin/curl') }),
      makeFlow({ srcIp: '192.168.1.11', dstIp: '203.0.113.9', process: proc(9, 'wget', '/usr/bin/wget') }),
      makeFlow({ srcIp: '192.168.1.10', dstIp: '198.51.100.1', process: null }),
    ]);
    expect(idx.programsOfPair('203.0.113.9', '192.168.1.10')).to.deep.equal([ref(8, 'curl', '/usr/bin/curl')]);
    expect(idx.programsOf('203.0.113.9').map((p) => p.name)).to.deep.equal(['curl', 'wget']);
    expect(idx.programsOf('198.51.100.1')).to.deep.equal([]);
    expect(idx.size).to.deep.equal({ pairs: 2, addresses: 3 });

    const f = finding({});
    idx.annotate(f);
    expect(f.programs).to.deep.equal([ref(8, 'curl', '/usr/bin/curl')]);
    expect(f.threatPrograms!.map((p) => p.name)).to.deep.equal(['curl', 'wget']);
    // A horizontal scan has no single destination: no programs of its own (not every program of the host).
    const scan = finding({ srcIp: '192.168.1.10', dstIp: null, threatIp: '192.168.1.10' });
    idx.annotate(scan);
    expect(scan.programs).to.equal(undefined);
    expect(scan.threatPrograms!.map((p) => p.name)).to.deep.equal(['curl']);
  });

  it('ProgramIndex is bounded: the least recently seen pairs and addresses go, each keeps its newest programs', () => {
    const idx = new ProgramIndex(3);
    for (let i = 0; i < 5; i++) idx.observe([makeFlow({ srcIp: `10.0.0.${i}`, dstIp: `203.0.113.${i}`, process: proc(i, `p${i}`, `/bin/p${i}`) })]);
    expect(idx.size).to.deep.equal({ pairs: 3, addresses: 3 });
    expect(idx.programsOf('203.0.113.0')).to.deep.equal([]);
    const flows = Array.from({ length: MAX_ALERT_PROGRAMS + 3 }, (_, i) =>
      makeFlow({ srcIp: '10.0.0.4', dstIp: '203.0.113.4', process: proc(100 + i, `n${i}`, `/bin/n${i}`) }),
    );
    idx.observe(flows);
    const programs = idx.programsOf('203.0.113.4');
    expect(programs).to.have.length(MAX_ALERT_PROGRAMS);
    expect(programs.at(-1)!.name).to.equal(`n${MAX_ALERT_PROGRAMS + 2}`);
  });
  it('ProgramIndex keys IPv4, IPv6 and mixed pairs apart, with one use order across them', () => {
    const idx = new ProgramIndex(2);
    idx.observe([
      makeFlow({ srcIp: '2001:db8::1', dstIp: '10.0.0.9', process: proc(1, 'mixed', '/bin/mixed') }),
      makeFlow({ srcIp: '10.0.0.1', dstIp: '2001:db8::9', process: proc(2, 'six', '/bin/six') }),
      // Not a canonical dotted quad: kept under its text, never equal to 10.0.0.9.
      makeFlow({ srcIp: '10.0.0.1', dstIp: '010.0.0.9', process: proc(3, 'odd', '/bin/odd') }),
    ]);
    // The first pair was the least recently seen: gone (IPv4 and text keys share one use order).
    expect(idx.size).to.deep.equal({ pairs: 2, addresses: 2 });
    expect(idx.programsOfPair('10.0.0.9', '2001:db8::1')).to.deep.equal([]);
    expect(idx.programsOf('10.0.0.9')).to.deep.equal([]);
    expect(idx.programsOfPair('2001:db8::9', '10.0.0.1').map((p) => p.name)).to.deep.equal(['six']);
    expect(idx.programsOf('10.0.0.1').map((p) => p.name)).to.deep.equal(['six', 'odd']);
    expect(idx.programsOfPair('10.0.0.1', '010.0.0.9').map((p) => p.name)).to.deep.equal(['odd']);
    expect(idx.programsOf('010.0.0.9').map((p) => p.name)).to.deep.equal(['odd']);
    expect(idx.programsOf('2001:db8::9')).to.deep.equal([]);
    idx.observe([makeFlow({ srcIp: '10.0.0.9', dstIp: '10.0.0.1', process: proc(4, 'four', '/bin/four') })]);
    expect(idx.programsOfPair('10.0.0.1', '10.0.0.9').map((p) => p.name)).to.deep.equal(['four']);
    expect(idx.programsOf('10.0.0.9').map((p) => p.name)).to.deep.equal(['four']);
    // 10.0.0.9 went in first and pushed out 10.0.0.1, whose programs start again.
    expect(idx.programsOf('10.0.0.1').map((p) => p.name)).to.deep.equal(['four']);
    expect(idx.programsOf('010.0.0.9')).to.deep.equal([]);
  });
});
