/**
 * The import-direction rules of `.dependency-cruiser.cjs`, run through dependency-cruiser's API over small trees
 * written to a temp dir: one where every file breaks exactly one rule, and one laid out the way the house wants. The
 * real tree is not cruised, so these tests hold whether or not `src/` is clean today.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { ROOT, tempDir } from '../../helpers/setup.js';

/** Stand-ins for the npm packages the rules name: enough for resolution, nothing more. */
const FAKE_PACKAGES = ['better-sqlite3', 'pg', 'kysely', 'koa', 'zod'];

/** Writes `files` (path -> source) under a fresh temp dir with the fake packages; returns the dir. */
function writeTree(files: Record<string, string>): string {
  const dir = tempDir('depcruise-');
  const all: Record<string, string> = { ...files };
  for (const name of FAKE_PACKAGES) {
    all[`node_modules/${name}/package.json`] = JSON.stringify({ name, version: '1.0.0', main: 'index.js' });
    all[`node_modules/${name}/index.js`] = 'module.exports = {};\n';
  }
  for (const [file, text] of Object.entries(all)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

interface Found {
  rule: string;
  from: string;
  to: string;
}

/** Cruises `src`, `test`, `bench` and `web` of `dir` with the project's rule set; returns the violations found. */
async function violations(dir: string): Promise<Found[]> {
  const options = await extractDepcruiseOptions(path.join(ROOT, '.dependency-cruiser.cjs'));
  // The temp tree has no tsconfig; NodeNext `.js` -> `.ts` resolution needs none.
  delete options.tsConfig;
  const roots = ['src', 'test', 'bench', 'web'].filter((folder) => existsSync(path.join(dir, folder)));
  const { output } = await cruise(roots, { ...options, baseDir: dir, validate: true });
  const result = output as ICruiseResult;
  return result.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
}

/** A module that exports one value and imports nothing. */
const LEAF = 'export const value = 1;\n';

const TREES = {
  /** Each importing file breaks exactly one rule; every imported file is a leaf. */
  bad: {
    'src/errors.ts': LEAF,
    'src/desktop-api/app.ts': LEAF,
    'src/desktop-api/routes/health.routes.ts': LEAF,
    'src/desktop-api/schemas/health.schema.ts': LEAF,
    'src/detect/engine.ts': LEAF,
    'src/firewall/rules.ts': LEAF,
    'src/firewall/types.ts': LEAF,
    'src/ml/scorer.ts': LEAF,
    'src/sensor/pipeline.ts': LEAF,
    'src/store/database.ts': LEAF,
    'test/unit/some.test.ts': LEAF,
    // the violations
    'src/store/bad.ts': "import { value } from '../desktop-api/app.js';\nexport const bad = value;\n",
    'src/ml/bad.ts': "import { value } from '../detect/engine.js';\nexport const bad = value;\n",
    'src/config/bad.ts': "import { value } from '../firewall/rules.js';\nexport const bad = value;\n",
    'src/native/bad.ts': "import { value } from '../store/database.js';\nexport const bad = value;\n",
    'src/net/bad.ts': "import { value } from '../ml/scorer.js';\nexport const bad = value;\n",
    'src/domain/bad.ts': "import { value } from '../errors.js';\nexport const bad = value;\n",
    'src/firewall/bad.ts': "import { value } from '../detect/engine.js';\nexport const bad = value;\n",
    'src/detect/bad.ts': "import { value } from '../sensor/pipeline.js';\nexport const bad = value;\n",
    'src/detect/sql.ts': "import Database from 'better-sqlite3';\nexport const bad = Database;\n",
    'src/ml/koa.ts': "import Koa from 'koa';\nexport const bad = Koa;\n",
    'src/sensor/bad.ts': "import { value } from '../desktop-api/schemas/health.schema.js';\nexport const bad = value;\n",
    'src/web-api/bad.ts': "import { value } from '../desktop-api/app.js';\nexport const bad = value;\n",
    'src/desktop-api/services/bad.ts': "import { value } from '../routes/health.routes.js';\nexport const bad = value;\n",
    'src/desktop-api/routes/bad.routes.ts': "import { value } from '../../ml/scorer.js';\nexport const bad = value;\n",
    'src/desktop-api/routes/value.routes.ts': "import { value } from '../../firewall/types.js';\nexport const bad = value;\n",
    'src/http/bad.ts': "import { value } from '../store/database.js';\nexport const bad = value;\n",
    'src/bad.ts': "import { value } from '../test/unit/some.test.js';\nexport const bad = value;\n",
    'bench/bad.bench.ts': "import { value } from '../test/unit/some.test.js';\nexport const bad = value;\n",
    'src/desktop-api/page.ts': "import { view } from '../../web/dashboard/view.js';\nexport const bad = view;\n",
    'web/dashboard/view.ts': 'export const view = 1;\n',
    'web/dashboard/server.ts': "import { value } from '../../src/desktop-api/schemas/health.schema.js';\nexport const bad = value;\n",
    'web/dashboard/store.ts': "import type { Db } from '../../src/store/database.js';\nexport type Bad = Db;\n",
    'web/dashboard/koa.ts': "import Koa from 'koa';\nexport const bad = Koa;\n",
    'src/detect/ping.ts': "import { pong } from './pong.js';\nexport const ping = (): number => pong() + 1;\n",
    'src/detect/pong.ts': "import { ping } from './ping.js';\nexport const pong = (): number => ping() - 1;\n",
  },
  /** The house as it should be, top to bottom, including the type-only exception for routes. */
  good: {
    'src/cli/main.ts': "import { app } from '../desktop-api/app.js';\nexport const main = app;\n",
    'src/desktop-api/app.ts': "import { register } from './routes/alerts.routes.js';\nexport const app = register;\n",
    'src/desktop-api/routes/alerts.routes.ts':
      "import type { FirewallService } from '../../firewall/types.js';\nimport { list } from '../services/alerts.service.js';\n" +
      'export const register = (firewall: FirewallService): number => list() + firewall.size;\n',
    'src/desktop-api/services/alerts.service.ts': "import { run } from '../../sensor/pipeline.js';\nexport const list = run;\n",
    'src/sensor/pipeline.ts': "import { detect } from '../detect/engine.js';\nexport const run = detect;\n",
    'src/detect/engine.ts':
      "import { score } from '../ml/scorer.js';\nimport { block } from '../firewall/rules.js';\nexport const detect = (): number => score() + block();\n",
    'src/ml/scorer.ts': "import { capture } from '../native/capture.js';\nexport const score = capture;\n",
    'src/firewall/types.ts': 'export interface FirewallService { size: number }\n',
    'src/firewall/rules.ts': "import { save } from '../store/repo.js';\nexport const block = save;\n",
    'src/store/repo.ts':
      "import Database from 'better-sqlite3';\nimport type { Config } from '../config/load.js';\nimport { now } from '../clock.js';\n" +
      'export const save = (config?: Config): number => (config && Database ? now() : 0);\n',
    'src/clock.ts': 'export const now = (): number => 1;\n',
    'src/config/load.ts': "import { parse } from '../net/address.js';\nexport interface Config { port: number }\nexport const load = parse;\n",
    'src/net/address.ts': "import { AppError } from '../errors.js';\nexport const parse = (): AppError => new AppError();\n",
    'src/native/capture.ts': "import { AppError } from '../errors.js';\nexport const capture = (): number => (AppError ? 1 : 0);\n",
    'src/domain/alert.ts': "import { z } from 'zod';\nexport const alert = z;\n",
    'src/errors.ts': 'export class AppError extends Error {}\n',
    'bench/detect.bench.ts': "import { helper } from '../test/helpers/helper.js';\nexport const bench = helper;\n",
    'web/dashboard/main.ts':
      "import type { Health } from '../../src/desktop-api/schemas/health.schema.js';\nexport const show = (h: Health): number => h.up;\n",
    'src/desktop-api/schemas/health.schema.ts': "import { z } from 'zod';\nexport interface Health { up: number }\nexport const schema = z;\n",
    'test/helpers/helper.ts': "import { detect } from '../../src/detect/engine.js';\nexport const helper = detect;\n",
  },
} satisfies Record<string, Record<string, string>>;

describe('.dependency-cruiser.cjs', function () {
  this.timeout(60_000);

  it('names the rule each deliberate bad import breaks', async () => {
    const found = await violations(writeTree(TREES.bad));
    const byFrom = (a: Found, b: Found): number => a.from.localeCompare(b.from) || a.to.localeCompare(b.to);
    expect(found.sort(byFrom)).to.deep.equal(
      [
        { rule: 'store-is-a-leaf', from: 'src/store/bad.ts', to: 'src/desktop-api/app.ts' },
        { rule: 'ml-not-to-upper-layers', from: 'src/ml/bad.ts', to: 'src/detect/engine.ts' },
        { rule: 'config-not-to-layers', from: 'src/config/bad.ts', to: 'src/firewall/rules.ts' },
        { rule: 'native-is-a-leaf', from: 'src/native/bad.ts', to: 'src/store/database.ts' },
        { rule: 'net-is-pure', from: 'src/net/bad.ts', to: 'src/ml/scorer.ts' },
        { rule: 'domain-imports-only-zod', from: 'src/domain/bad.ts', to: 'src/errors.ts' },
        { rule: 'firewall-not-to-upper-layers', from: 'src/firewall/bad.ts', to: 'src/detect/engine.ts' },
        { rule: 'detect-not-to-sensor-or-apis', from: 'src/detect/bad.ts', to: 'src/sensor/pipeline.ts' },
        { rule: 'sql-drivers-only-in-store', from: 'src/detect/sql.ts', to: 'node_modules/better-sqlite3/index.js' },
        { rule: 'no-koa-below-the-http-edge', from: 'src/ml/koa.ts', to: 'node_modules/koa/index.js' },
        { rule: 'sensor-not-to-apis', from: 'src/sensor/bad.ts', to: 'src/desktop-api/schemas/health.schema.ts' },
        { rule: 'web-api-not-to-desktop-api', from: 'src/web-api/bad.ts', to: 'src/desktop-api/app.ts' },
        { rule: 'only-app-imports-routes', from: 'src/desktop-api/services/bad.ts', to: 'src/desktop-api/routes/health.routes.ts' },
        { rule: 'routes-call-services', from: 'src/desktop-api/routes/bad.routes.ts', to: 'src/ml/scorer.ts' },
        { rule: 'routes-take-contract-types-only', from: 'src/desktop-api/routes/value.routes.ts', to: 'src/firewall/types.ts' },
        { rule: 'http-is-glue-only', from: 'src/http/bad.ts', to: 'src/store/database.ts' },
        { rule: 'src-not-to-test-or-bench', from: 'src/bad.ts', to: 'test/unit/some.test.ts' },
        { rule: 'bench-only-to-test-helpers', from: 'bench/bad.bench.ts', to: 'test/unit/some.test.ts' },
        { rule: 'server-not-to-web', from: 'src/desktop-api/page.ts', to: 'web/dashboard/view.ts' },
        { rule: 'web-imports-no-server-values', from: 'web/dashboard/server.ts', to: 'src/desktop-api/schemas/health.schema.ts' },
        { rule: 'web-takes-api-types-only', from: 'web/dashboard/store.ts', to: 'src/store/database.ts' },
        { rule: 'web-is-browser-code', from: 'web/dashboard/koa.ts', to: 'node_modules/koa/index.js' },
        // A cycle is one violation, reported at its first module.
        { rule: 'no-circular', from: 'src/detect/ping.ts', to: 'src/detect/pong.ts' },
      ].sort(byFrom),
    );
  });

  it('finds nothing in a tree that follows the direction', async () => {
    expect(await violations(writeTree(TREES.good))).to.deep.equal([]);
  });
});
