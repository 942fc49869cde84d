/** src/native/errors.ts: native ERR_CAPTURE_* errors -> CaptureError (AppError) codes and statuses. */
import { expect } from 'chai';
import { AppError } from '../../../src/errors.js';
import { CaptureError, wrapNativeError } from '../../../src/native/errors.js';

function nativeError(code: string, message = 'boom'): Error {
  return Object.assign(new Error(message), { code });
}

describe('wrapNativeError()', () => {
  it('maps each native code to a snake_case code and status', () => {
    const cases: [string, string, number][] = [
      ['ERR_CAPTURE_PERMISSION_DENIED', 'capture_permission_denied', 503],
      ['ERR_CAPTURE_NO_SUCH_DEVICE', 'capture_no_such_device', 400],
      ['ERR_CAPTURE_FILE_UNREADABLE', 'capture_file_unreadable', 400],
      ['ERR_CAPTURE_FILE_CORRUPT', 'capture_file_corrupt', 400],
      ['ERR_CAPTURE_BAD_FILTER', 'capture_bad_filter', 400],
      ['ERR_CAPTURE_DEVICE_FAILURE', 'capture_device_failure', 503],
      ['ERR_CAPTURE_READ_FAILURE', 'capture_read_failure', 503],
    ];
    for (const [nativeCode, code, status] of cases) {
      const err = wrapNativeError(nativeError(nativeCode, 'what to do'), 'live') as CaptureError;
      expect(err).to.be.instanceOf(CaptureError).and.instanceOf(AppError);
      expect([err.code, err.status, err.nativeCode, err.message, err.name]).to.deep.equal([code, status, nativeCode, 'what to do', 'CaptureError']);
      expect((err.cause as Error).message).to.equal('what to do');
    }
  });

  it('reports a read failure of a file as capture_file_corrupt', () => {
    const err = wrapNativeError(nativeError('ERR_CAPTURE_READ_FAILURE'), 'file') as CaptureError;
    expect([err.code, err.status]).to.deep.equal(['capture_file_corrupt', 400]);
  });

  it('leaves other errors untouched', () => {
    const plain = new TypeError('bad argument');
    expect(wrapNativeError(plain)).to.equal(plain);
    const other = nativeError('ENOENT');
    expect(wrapNativeError(other)).to.equal(other);
  });
});
