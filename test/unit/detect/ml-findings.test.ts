import { expect } from 'chai';
import { classShare, mlFindings, mlSeverity } from '../../../src/detect/ml-findings.js';
import type { FlaggedFlow } from '../../../src/ml/scorer.js';
import type { ModelInfo } from '../../../src/ml/types.js';
import { makeFlow } from './flow-factory.js';

const info = { name: 'vigil-flow', version: 'test', sha256: '00' } as unknown as ModelInfo;
const thresholds = { alert: 0.5, high: 0.87, critical: 0.98 };

function hit(index: number, category: string, score: number, probability: number): FlaggedFlow {
  return { index, category, score, probability, explain: () => [] };
}

describe('detect/ml-findings', () => {
  describe('classShare()', () => {
    it('is the winning family share of the attack probability', () => {
      expect(classShare({ score: 0.8, probability: 0.6 })).to.be.closeTo(0.75, 1e-12);
      expect(classShare({ score: 0.9, probability: 0.9 })).to.equal(1);
      expect(classShare({ score: 0, probability: 0 })).to.equal(0);
    });
  });

  describe('mlFindings()', () => {
    it('makes no finding for a flow whose family is a guess between several, and leaves it uncounted', () => {
      const flows = [makeFlow({ srcIp: '10.0.0.2', dstIp: '10.0.0.9' }), makeFlow({ srcIp: '10.0.0.3', dstIp: '10.0.0.9' })];
      const counted: number[] = [];
      const isNew = (f: { id: number }): boolean => {
        counted.push(f.id);
        return true;
      };
      // 0.55 of 0.9 is 61% (clear); 0.35 of 0.7 is 50% (split between families).
      const findings = mlFindings(flows, [hit(0, 'dos', 0.9, 0.55), hit(1, 'web_attack', 0.7, 0.35)], info, thresholds, { firstFlag: isNew }, 'path', 0.6);
      expect(findings.map((f) => [f.srcIp, f.category, f.severity])).to.deep.equal([['10.0.0.2', 'dos', 'medium']]);
      expect(findings[0]!.details.classShare).to.equal(0.6111);
      expect(counted).to.deep.equal([flows[0]!.id]);
    });

    it('keeps every flagged flow when the share is 0', () => {
      const flows = [makeFlow({ srcIp: '10.0.0.2' }), makeFlow({ srcIp: '10.0.0.3' })];
      const findings = mlFindings(flows, [hit(0, 'dos', 0.9, 0.55), hit(1, 'web_attack', 0.7, 0.35)], info, thresholds, { firstFlag: () => true }, 'path', 0);
      expect(findings.map((f) => f.category)).to.deep.equal(['dos', 'web_attack']);
    });
  });

  describe('mlSeverity()', () => {
    it('steps down below critical and is low below high', () => {
      expect(mlSeverity('dos', 0.99, thresholds)).to.equal('high');
      expect(mlSeverity('dos', 0.9, thresholds)).to.equal('medium');
      expect(mlSeverity('dos', 0.8, thresholds)).to.equal('low');
      expect(mlSeverity('port_scan', 0.9, thresholds)).to.equal('low');
    });
  });
});
