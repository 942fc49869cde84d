/**
 * Capture errors: the addon throws plain Errors with `code: 'ERR_CAPTURE_*'`; {@link wrapNativeError} turns them
 * into {@link CaptureError}s (AppErrors with a snake_case `code`, an HTTP status and the native code kept in
 * `nativeCode`), keeping the JS stack of the call site as sharp's `nativeError` does.
 */
import { AppError } from '../errors.js';

/** Stable codes of capture failures (part of the API contract). */
export type CaptureErrorCode =
  | 'capture_permission_denied'
  | 'capture_no_such_device'
  | 'capture_file_unreadable'
  | 'capture_file_corrupt'
  | 'capture_bad_filter'
  | 'capture_device_failure'
  | 'capture_read_failure';

const BY_NATIVE: Record<string, { code: CaptureErrorCode; status: number }> = {
  ERR_CAPTURE_PERMISSION_DENIED: { code: 'capture_permission_denied', status: 503 },
  ERR_CAPTURE_NO_SUCH_DEVICE: { code: 'capture_no_such_device', status: 400 },
  ERR_CAPTURE_FILE_UNREADABLE: { code: 'capture_file_unreadable', status: 400 },
  ERR_CAPTURE_FILE_CORRUPT: { code: 'capture_file_corrupt', status: 400 },
  ERR_CAPTURE_BAD_FILTER: { code: 'capture_bad_filter', status: 400 },
  ERR_CAPTURE_DEVICE_FAILURE: { code: 'capture_device_failure', status: 503 },
  ERR_CAPTURE_READ_FAILURE: { code: 'capture_read_failure', status: 503 },
};

/** A capture source could not be opened or read. `message` says what to do; `nativeCode` is the addon's code. */
export class CaptureError extends AppError {
  readonly nativeCode: string;
  constructor(code: CaptureErrorCode, status: number, message: string, nativeCode: string, cause?: unknown) {
    super(code, status, message, { cause });
    this.nativeCode = nativeCode;
  }
}

function nativeCodeOf(err: unknown): string | undefined {
  if (err instanceof Error && 'code' in err && typeof err.code === 'string') return err.code;
  return undefined;
}

/**
 * Translates an error thrown or reported by the addon. Errors without an `ERR_CAPTURE_*` code (bugs, TypeErrors) are
 * returned unchanged. A read failure of a file source is reported as `capture_file_corrupt` (truncated or damaged file).
 */
export function wrapNativeError(err: unknown, sourceKind?: 'live' | 'file'): unknown {
  const nativeCode = nativeCodeOf(err);
  if (nativeCode === undefined || !nativeCode.startsWith('ERR_CAPTURE_')) return err;
  let mapped = BY_NATIVE[nativeCode] ?? { code: 'capture_device_failure' as const, status: 503 };
  if (nativeCode === 'ERR_CAPTURE_READ_FAILURE' && sourceKind === 'file') mapped = { code: 'capture_file_corrupt', status: 400 };
  const message = err instanceof Error ? err.message : String(err);
  const wrapped = new CaptureError(mapped.code, mapped.status, message, nativeCode, err);
  Error.captureStackTrace(wrapped, wrapNativeError);
  return wrapped;
}
