/**
 * TestContext for the Web API: the real composition (`startWebServer`) on port 0 with a fresh database: an SQLite file
 * in tempDir(), or, under `npm run test:pg`, a new database on the VIGIL_TEST_PG_URL server (dropped afterwards).
 * The HTTP client never throws on status; it checks every response against the OpenAPI document (openapi-contract.ts).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { startWebServer, type RunningWebServer } from '../../../src/cli/commands/web.js';
import { loadWebConfig, type WebConfig } from '../../../src/config/web.js';
import { tempDir } from '../../helpers/setup.js';
import { expectDocumented } from './openapi-contract.js';

/** PostgreSQL admin URL (a database the tests may create databases from), or undefined to test on SQLite. */
export const TEST_PG_URL = process.env.VIGIL_TEST_PG_URL?.trim() || undefined;
/**
 * Which database the suite runs on: `postgres` (set by `npm run test:pg`) or SQLite otherwise. Kept apart from
 * VIGIL_TEST_PG_URL so that `npm test` stays on SQLite in CI, where .ci/services.sh exports the URL for everyone.
 */
export const TEST_WEB_DATABASE = process.env.VIGIL_TEST_WEB_DATABASE === 'postgres' ? 'postgres' : 'sqlite';
/** Redis URL for the shared-limit tests, or undefined. */
export const TEST_REDIS_URL = process.env.VIGIL_TEST_REDIS_URL?.trim() || undefined;

/** A response as the tests see it. */
export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Creates an empty PostgreSQL database and returns its URL and a dropper. */
export async function createPgDatabase(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `vigil_web_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** The database a context uses. */
export interface TestDatabase {
  /** Value for VIGIL_WEB_DATABASE_URL (undefined = SQLite in the data dir). */
  url: string | undefined;
  drop: () => Promise<void>;
}

/** A fresh database of the kind selected by the environment. */
export async function freshDatabase(): Promise<TestDatabase> {
  if (TEST_WEB_DATABASE === 'sqlite') return { url: undefined, drop: async () => undefined };
  if (TEST_PG_URL === undefined) throw new Error('VIGIL_TEST_WEB_DATABASE=postgres needs VIGIL_TEST_PG_URL (`source .ci/services.sh` starts a server)');
  return createPgDatabase(TEST_PG_URL);
}

/** A running Web API plus a fetch wrapper. */
export class TestContext {
  private constructor(
    readonly server: RunningWebServer,
    readonly config: WebConfig,
    private readonly database: TestDatabase,
    /** Unexpected errors the app logged. */
    readonly logged: unknown[],
  ) {}

  /**
   * Starts the Web API with `env` on top of test defaults (port 0, temp data dir, fresh database). `database` lets two
   * contexts share one PostgreSQL database.
   */
  static async start(env: Record<string, string | undefined> = {}, database?: TestDatabase): Promise<TestContext> {
    const db = database ?? (await freshDatabase());
    const dataDir = tempDir('web-api-');
    const config = loadWebConfig({
      VIGIL_WEB_HOST: '127.0.0.1',
      VIGIL_WEB_PORT: '0',
      VIGIL_WEB_PUBLIC_URL: 'http://vigil.test',
      VIGIL_WEB_DATA_DIR: dataDir,
      VIGIL_WEB_SIGNING_KEY_FILE: path.join(dataDir, 'signing-key.pem'),
      VIGIL_WEB_DATABASE_URL: db.url,
      VIGIL_JWT_JWKS_COOLDOWN_MS: '0',
      ...env,
    });
    const logged: unknown[] = [];
    const server = await startWebServer(config, { log: (_message, err) => logged.push(err) });
    return new TestContext(server, config, db, logged);
  }

  get url(): string {
    return this.server.url;
  }

  get db() {
    return this.server.store.db;
  }

  /** Sends a request; JSON `body` is serialised; never throws on an HTTP status. */
  async request<T = Record<string, unknown>>(
    method: string,
    urlPath: string,
    options: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) headers['content-type'] ??= 'application/json';
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    const response = await fetch(`${this.url}${urlPath}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
    });
    const text = await response.text();
    let body: unknown = {};
    if (/json/.test(response.headers.get('content-type') ?? '') && text.length > 0) body = JSON.parse(text);
    const result = { status: response.status, headers: response.headers, body: body as T, text };
    expectDocumented(method, urlPath, result);
    return result;
  }

  /** Stops the server and drops its database (unless `keepDatabase`). */
  async close(keepDatabase = false): Promise<void> {
    await this.server.close();
    if (!keepDatabase) await this.database.drop();
  }
}
