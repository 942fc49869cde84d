import { expect } from 'chai';
import { FITTING_CATEGORIES, expectedCategory, judgeCapture, summarise, type JudgedCapture, type PlainAlert, type Truth } from '../../../eval/verdict.js';

function alert(over: Partial<PlainAlert>): PlainAlert {
  return { category: 'port_scan', severity: 'high', srcIp: '10.0.0.1', dstIp: '10.0.0.2', source: 'rule', title: 't', count: 1, ...over };
}

const scan: Truth = { label: 'attack', family: 'port_scan', attackers: ['10.0.0.128'], victims: [] };
const beacon: Truth = { label: 'attack', family: 'c2_beacon', attackers: ['147.32.80.37'], victims: ['141.193.213.20', '141.193.213.21'] };
const ddos: Truth = { label: 'attack', family: 'ddos', attackers: [], victims: ['10.10.10.10'] };
const benign: Truth = { label: 'benign', family: 'video_call' };

describe('eval: the verdict on one capture', () => {
  it('detected: an alert from the attacker with a fitting category', () => {
    const j = judgeCapture(scan, [alert({ srcIp: '10.0.0.128', dstIp: '10.0.0.5', category: 'port_scan' })]);
    expect(j.label).to.equal('attack');
    if (j.label !== 'attack') return;
    expect(j.verdict).to.equal('detected');
    expect(j.fitting).to.have.length(1);
    expect(j.wrong).to.have.length(0);
  });

  it('detected: the target alone may match (a spoofed DDoS names only its victim)', () => {
    const j = judgeCapture(ddos, [alert({ srcIp: '203.0.113.9', dstIp: '10.10.10.10', category: 'dos' })]);
    expect(j.label === 'attack' && j.verdict).to.equal('detected');
  });

  it('detected: a second victim address counts (a name behind two CDN addresses)', () => {
    const j = judgeCapture(beacon, [alert({ srcIp: '192.0.2.1', dstIp: '141.193.213.21', category: 'beaconing' })]);
    expect(j.label === 'attack' && j.verdict).to.equal('detected');
  });

  it('wrong category: alerts on the ground truth, none fitting', () => {
    const j = judgeCapture(beacon, [alert({ srcIp: '147.32.80.37', dstIp: '141.193.213.20', category: 'dos', source: 'ml' })]);
    expect(j.label).to.equal('attack');
    if (j.label !== 'attack') return;
    expect(j.verdict).to.equal('wrong_category');
    expect(j.wrong.map((a) => a.category)).to.deep.equal(['dos']);
  });

  it('a fitting alert wins over a wrong one on the same capture', () => {
    const j = judgeCapture(scan, [alert({ srcIp: '10.0.0.128', category: 'dos' }), alert({ srcIp: '10.0.0.128', category: 'port_scan' })]);
    expect(j.label === 'attack' && j.verdict).to.equal('detected');
    if (j.label !== 'attack') return;
    expect(j.wrong).to.have.length(1);
  });

  it('missed: a fitting category between other addresses is off-target, not a detection', () => {
    const j = judgeCapture(scan, [alert({ srcIp: '10.9.9.9', dstIp: '10.0.0.2', category: 'port_scan' })]);
    expect(j.label).to.equal('attack');
    if (j.label !== 'attack') return;
    expect(j.verdict).to.equal('missed');
    expect(j.offTarget).to.have.length(1);
  });

  it('missed: no alert at all', () => {
    expect(judgeCapture(scan, []).label === 'attack' && (judgeCapture(scan, []) as { verdict: string }).verdict).to.equal('missed');
  });

  it('compares IPv6 text case-insensitively and IPv4-mapped IPv6 as IPv4', () => {
    const v6: Truth = { label: 'attack', family: 'dos', attackers: ['2001:DB8:1::2'], victims: [] };
    expect((judgeCapture(v6, [alert({ srcIp: '2001:db8:1::2', category: 'dos' })]) as { verdict: string }).verdict).to.equal('detected');
    const mapped = judgeCapture(scan, [alert({ srcIp: '::ffff:10.0.0.128', category: 'port_scan' })]);
    expect((mapped as { verdict: string }).verdict).to.equal('detected');
  });

  it('a null target matches nothing', () => {
    const j = judgeCapture(ddos, [alert({ srcIp: '203.0.113.9', dstIp: null, category: 'ddos' })]);
    expect((j as { verdict: string }).verdict).to.equal('missed');
  });

  it('benign: every alert is a false positive, counted by severity', () => {
    const j = judgeCapture(benign, [alert({ severity: 'medium' }), alert({ severity: 'medium' }), alert({ severity: 'low' })]);
    expect(j.label).to.equal('benign');
    if (j.label !== 'benign') return;
    expect(j.falsePositives).to.deep.equal({ low: 1, medium: 2, high: 0, critical: 0 });
  });

  it('every family has an expected category, and threat_intel fits none', () => {
    for (const [family, cats] of Object.entries(FITTING_CATEGORIES)) {
      expect(cats.length, family).to.be.greaterThan(0);
      expect(cats).to.not.include('threat_intel');
    }
    expect(expectedCategory('c2_beacon')).to.equal('beaconing');
    expect(expectedCategory('arp_spoofing')).to.equal('arp_spoofing');
  });
});

describe('eval: the sums over captures', () => {
  const judged = (file: string, truth: Truth, alerts: PlainAlert[], split: 'tuning' | 'reporting' = 'reporting'): JudgedCapture => ({
    file,
    split,
    truth,
    judgement: judgeCapture(truth, alerts),
  });

  it('counts verdicts per family and benign false positives per severity', () => {
    const s = summarise([
      judged('a', scan, [alert({ srcIp: '10.0.0.128' })]),
      judged('b', scan, []),
      judged('c', beacon, [alert({ srcIp: '147.32.80.37', category: 'dos' })]),
      judged('d', benign, [alert({ severity: 'medium' }), alert({ severity: 'high' })]),
      judged('e', benign, []),
    ]);
    expect(s.attacks).to.equal(3);
    expect([s.detected, s.wrongCategory, s.missed]).to.deep.equal([1, 1, 1]);
    expect(s.detectionRate).to.be.closeTo(1 / 3, 1e-9);
    expect(s.families.map((f) => [f.family, f.captures, f.detected, f.wrongCategory, f.missed])).to.deep.equal([
      ['port_scan', 2, 1, 0, 1],
      ['c2_beacon', 1, 0, 1, 0],
    ]);
    expect(s.benign).to.equal(2);
    expect(s.benignWithAlerts).to.equal(1);
    expect(s.falsePositives).to.deep.equal({ low: 0, medium: 1, high: 1, critical: 0 });
    expect(s.mediumPer10Benign).to.equal(5);
    expect(s.meetsAcceptance).to.equal(false);
  });

  it('meets acceptance at 90% detected, no wrong category, no high FP and at most 1 medium per 10 benign', () => {
    const attacks = Array.from({ length: 10 }, (_, i) => judged(`a${i}`, scan, i < 9 ? [alert({ srcIp: '10.0.0.128' })] : []));
    const benigns = Array.from({ length: 10 }, (_, i) => judged(`b${i}`, benign, i === 0 ? [alert({ severity: 'medium' }), alert({ severity: 'low' })] : []));
    const ok = summarise([...attacks, ...benigns]);
    expect(ok.detectionRate).to.equal(0.9);
    expect(ok.mediumPer10Benign).to.equal(1);
    expect(ok.meetsAcceptance).to.equal(true);
    // One more medium, one wrong category, or one high alert each breaks it.
    expect(summarise([...attacks, ...benigns, judged('m', benign, [alert({ severity: 'medium' })])]).meetsAcceptance).to.equal(false);
    expect(summarise([...attacks, ...benigns, judged('h', benign, [alert({ severity: 'high' })])]).meetsAcceptance).to.equal(false);
    // 19 of 20 detected (95%) but the 20th under a wrong category.
    const nineteen = Array.from({ length: 19 }, (_, i) => judged(`d${i}`, scan, [alert({ srcIp: '10.0.0.128' })]));
    const wrong = summarise([...nineteen, judged('w', scan, [alert({ srcIp: '10.0.0.128', category: 'dos' })]), ...benigns]);
    expect(wrong.detectionRate).to.equal(0.95);
    expect(wrong.meetsAcceptance).to.equal(false);
    // Below 90% with nothing else wrong.
    expect(summarise([...attacks, judged('x', scan, []), ...benigns]).meetsAcceptance).to.equal(false);
  });

  it('an empty set sums to zeros', () => {
    const s = summarise([]);
    expect([s.attacks, s.benign, s.detectionRate, s.mediumPer10Benign]).to.deep.equal([0, 0, 0, 0]);
    expect(s.families).to.deep.equal([]);
  });
});
