import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
import { createErrorLog, isClientSocketError } from '../../../src/http/error-log.js';

describe('createErrorLog()', () => {
  const setup = (maxPerWindow: number) => {
    let now = 1_000_000;
    const lines: Array<[string, unknown]> = [];
    const errors = createErrorLog({ log: (m, e) => lines.push([m, e]), maxPerWindow, windowMs: 60_000, clock: { now: () => now } });
    return { errors, lines, advance: (ms: number) => (now += ms) };
  };

  it('logs at most maxPerWindow reports per window, then one "suppressed K" line when the window has passed', () => {
    const { errors, lines, advance } = setup(3);
    for (let i = 0; i < 8; i++) errors.report(`failure ${i}`, new Error(String(i)));
    expect(lines.map(([m]) => m)).to.deep.equal(['failure 0', 'failure 1', 'failure 2']);
    expect(errors.stats()).to.deep.equal({ client: 0, logged: 3, suppressed: 5 });
    advance(59_999);
    errors.report('still in the window', new Error('x'));
    expect(lines).to.have.length(3);
    advance(1);
    errors.report('next window', new Error('y'));
    expect(lines.slice(3).map(([m, e]) => [m, e === undefined])).to.deep.equal([
      ['suppressed 6 error reports in 60 s (at most 3 are logged per window)', true],
      ['next window', false],
    ]);
    expect(errors.stats()).to.deep.equal({ client: 0, logged: 4, suppressed: 6 });
    errors.close();
    expect(lines).to.have.length(5); // nothing pending: no line
  });

  it('writes the pending "suppressed" line at close()', () => {
    const { errors, lines } = setup(1);
    errors.report('a', new Error('a'));
    errors.report('b', new Error('b'));
    errors.close();
    expect(lines.map(([m]) => m)).to.deep.equal(['a', 'suppressed 1 error report in 60 s (at most 1 are logged per window)']);
    errors.close();
    expect(lines).to.have.length(2);
  });

  it('counts a client-caused failure once per request, and never logs it', () => {
    const { errors, lines } = setup(5);
    const first = {} as IncomingMessage;
    const second = {} as IncomingMessage;
    errors.clientFailure(first);
    errors.clientFailure(first);
    errors.clientFailure(second);
    expect(errors.stats()).to.deep.equal({ client: 2, logged: 0, suppressed: 0 });
    expect(lines).to.deep.equal([]);
  });
});

describe('isClientSocketError()', () => {
  it('recognises resets, aborts and HTTP parser errors, and nothing else', () => {
    const coded = (code: string, message = 'x'): Error => Object.assign(new Error(message), { code });
    expect(isClientSocketError(coded('ECONNRESET'))).to.equal(true);
    expect(isClientSocketError(coded('HPE_INVALID_EOF_STATE', 'Parse Error'))).to.equal(true);
    expect(isClientSocketError(coded('EPIPE'))).to.equal(true);
    expect(isClientSocketError(new Error('aborted'))).to.equal(true);
    expect(isClientSocketError(coded('ENOENT'))).to.equal(false);
    expect(isClientSocketError(new TypeError('undefined is not a function'))).to.equal(false);
    expect(isClientSocketError('aborted')).to.equal(false);
  });
});
