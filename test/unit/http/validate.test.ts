import { expect } from 'chai';
import { z } from 'zod';
import { ValidationError } from '../../../src/errors.js';
import { queryParser } from '../../../src/http/validate.js';

describe('queryParser()', () => {
  const schema = z.strictObject({ limit: z.string().regex(/^\d+$/).transform(Number).default(50) });

  it('parses once per distinct query string and returns the same frozen value', () => {
    let reads = 0;
    const ctx = (querystring: string, query: Record<string, string>) => ({
      querystring,
      get query() {
        reads++;
        return query;
      },
    });
    const parse = queryParser(schema, 2);
    const a = parse(ctx('limit=5', { limit: '5' }));
    expect(a).to.deep.equal({ limit: 5 });
    expect(Object.isFrozen(a)).to.equal(true);
    expect(parse(ctx('limit=5', { limit: '5' }))).to.equal(a);
    expect(reads).to.equal(1);
    expect(parse(ctx('', {}))).to.deep.equal({ limit: 50 });
    parse(ctx('limit=7', { limit: '7' })); // evicts limit=5 (2 entries kept)
    const again = parse(ctx('limit=5', { limit: '5' }));
    expect(again).to.not.equal(a);
    expect(again).to.deep.equal({ limit: 5 });
    expect(reads).to.equal(4);
  });

  it('throws a ValidationError naming the field on every bad request (failures are not cached)', () => {
    const parse = queryParser(schema);
    for (let i = 0; i < 2; i++) {
      expect(() => parse({ querystring: 'limit=x', query: { limit: 'x' } })).to.throw(ValidationError, /limit/);
    }
    expect(() => parse({ querystring: 'nope=1', query: { nope: '1' } })).to.throw(ValidationError);
  });
});
