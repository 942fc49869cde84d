import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../../helpers/setup.js';
import { objectArray, sparseObjectArray } from '../../../src/detect/arrays.js';

/**
 * The elements kind V8 gives arrays (src/detect/arrays.ts), read with its natives syntax in a child process: a `[]`
 * starts with small-integer elements, the helpers' arrays with the kind their contents give them, so storing an object
 * or a string (or leaving a hole) changes no map and deoptimizes no code compiled for an earlier instance's arrays.
 */
function kinds(expression: string): Record<string, boolean> {
  const script = `
    const { objectArray, sparseObjectArray } = await import(${JSON.stringify(path.join(ROOT, 'src', 'detect', 'arrays.ts'))});
    const a = ${expression};
    const before = { smi: %HasSmiElements(a), object: %HasObjectElements(a), holey: %HasHoleyElements(a) };
    a.push('a name');
    a[3] = { an: 'object' };
    console.log(JSON.stringify({ ...before, objectAfter: %HasObjectElements(a), holeyAfter: %HasHoleyElements(a) }));`;
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop() as string) as Record<string, boolean>;
}

describe('detect/arrays: empty arrays with their final elements kind', function () {
  this.timeout(30_000);

  it('objectArray() and sparseObjectArray() are empty arrays', () => {
    const a = objectArray<string>();
    const b = sparseObjectArray<string>();
    expect(a).to.deep.equal([]);
    expect(b).to.have.length(0);
    a.push('x');
    b[2] = 'y';
    expect(a).to.deep.equal(['x']);
    expect(b.length).to.equal(3);
    expect(b[2]).to.equal('y');
    expect(1 in b).to.equal(false);
  });

  it('a [] starts with small-integer elements (what the helpers avoid)', () => {
    expect(kinds('[]')).to.include({ smi: true, object: false, holey: false, objectAfter: true, holeyAfter: true });
  });

  it('objectArray() starts with object elements, without holes', () => {
    expect(kinds('objectArray()')).to.include({ smi: false, object: true, holey: false });
  });

  it('sparseObjectArray() starts with object elements that may have holes', () => {
    expect(kinds('sparseObjectArray()')).to.include({ smi: false, object: true, holey: true });
  });
});
