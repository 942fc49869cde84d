/**
 * The application's error hierarchy. Services throw these; only `src/http/problem.ts` turns them into responses,
 * and the CLI turns them into one-line messages. No Koa imports here.
 */

/** A problem the caller can act on: a stable snake_case `code`, an HTTP `status`, and a human `detail`. */
export class AppError extends Error {
  /** Stable machine-readable identifier (snake_case), part of the API contract. */
  readonly code: string;
  /** HTTP status this error maps to. */
  readonly status: number;
  /** Extra machine-readable fields merged into the problem body (for example `errors` or `field`). */
  readonly extra: Record<string, unknown>;

  constructor(code: string, status: number, message: string, options?: { cause?: unknown; extra?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.status = status;
    this.extra = options?.extra ?? {};
  }
}

/** One invalid input field. `path` names the field (`ip`, `limit`, `body.reason`). */
export interface FieldIssue {
  path: string;
  message: string;
}

/** 400: the request (or configuration) is invalid. */
export class ValidationError extends AppError {
  readonly errors: FieldIssue[];
  constructor(message: string, errors: FieldIssue[] = [], code = 'validation_failed') {
    super(code, 400, message, { extra: { errors } });
    this.errors = errors;
  }
}

/** 404: the addressed resource does not exist. */
export class NotFoundError extends AppError {
  constructor(message: string, code = 'not_found') {
    super(code, 404, message);
  }
}

/** 409: the request conflicts with current state or policy. */
export class ConflictError extends AppError {
  constructor(message: string, code = 'conflict', extra?: Record<string, unknown>) {
    super(code, 409, message, { extra });
  }
}

/** 401: missing or invalid credentials. */
export class UnauthorizedError extends AppError {
  constructor(message: string, code = 'unauthorized', extra?: Record<string, unknown>) {
    super(code, 401, message, { extra });
  }
}

/** 403: authenticated (or not) but not allowed. */
export class ForbiddenError extends AppError {
  constructor(message: string, code = 'forbidden', extra?: Record<string, unknown>) {
    super(code, 403, message, { extra });
  }
}

/** 503: a dependency (firewall, capture device, database, identity provider) is unavailable right now. */
export class ServiceUnavailableError extends AppError {
  constructor(message: string, code = 'service_unavailable', options?: { cause?: unknown; extra?: Record<string, unknown> }) {
    super(code, 503, message, options);
  }
}

/** Configuration could not be parsed; the message names the variable. */
export class ConfigError extends AppError {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super('invalid_config', 500, `${variable}: ${message}`, { extra: { variable } });
    this.variable = variable;
  }
}
