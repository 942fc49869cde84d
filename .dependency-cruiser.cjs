'use strict';
/**
 * The import direction of the house (STYLE.md §2, §12), checked by `npm run lint:deps` instead of review memory:
 *
 *   cli -> {desktop-api, web-api}: routes -> services -> sensor -> {detect -> {ml, firewall}, export}
 *       -> {store, native, net, http, config} -> {errors, events, clock, domain}
 *
 * Every rule is written for the target layout (src/domain, src/net, src/store/web, src/sensor); a folder that does not
 * exist yet simply matches nothing. Paths are relative to the repository root. Type-only imports count
 * (`tsPreCompilationDeps`): a type names the module it comes from, so it couples the two just as a value does, except
 * where a rule says otherwise.
 *
 * `test/unit/lint/dependency-rules.test.ts` runs these rules over a small tree of deliberate violations.
 */

/** Our own code: a path that resolves into the repository's TypeScript (binding.d.ts is the addon's raw surface). */
const OURS = ['^src/', '^test/', '^bench/', '^eval/', '^binding\\.d\\.ts$'];
// Package paths match anywhere in the resolved path: a symlinked node_modules (a worktree sharing one) resolves to
// `../<elsewhere>/node_modules/...`, and the rules must hold there too.
/** Koa and its middleware: only the HTTP edge (http/, the two APIs, cli) may know about them. */
const KOA = ['(^|/)node_modules/(@types/)?(koa|koa-[^/]+|@koa/[^/]+|koa__[^/]+)/'];
/** The SQL drivers: only the store opens a database. */
const SQL_DRIVERS = ['(^|/)node_modules/(@types/)?(better-sqlite3|pg|pg-[^/]+)/'];
const APIS = '^src/(desktop-api|web-api)/';
/**
 * errors.ts, events.ts and clock.ts are usable anywhere, leaves included: they import nothing themselves, so a leaf that
 * uses them still depends on nothing else.
 */
const CROSS_CUTTING = '^src/(errors|events|clock)\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    // ---- the whole graph ------------------------------------------------------------------------------------------
    {
      name: 'no-circular',
      comment:
        'A cycle means neither module can be understood, tested or moved without the other, and ESM evaluates one of ' +
        'them half-initialised. Break it by moving the shared piece down a layer.',
      severity: 'error',
      from: { path: '^(src|test|bench|eval)/' },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to nothing is a broken path (usually left behind by a move).',
      severity: 'error',
      from: { path: '^(src|test|bench|eval)/' },
      to: { couldNotResolve: true },
    },

    // ---- the bottom: usable anywhere, so it depends on nothing ----------------------------------------------------
    {
      name: 'cross-cutting-imports-nothing',
      comment:
        'errors.ts, events.ts and clock.ts are imported by every layer; if they imported any of our modules or a ' +
        'package, every layer would depend on that too.',
      severity: 'error',
      from: { path: CROSS_CUTTING },
      to: { dependencyTypesNot: ['core'] },
    },
    {
      name: 'domain-imports-only-zod',
      comment:
        'domain/ defines each domain type once (severity, alert source, the alert JSON view) for every layer to ' +
        'derive from; it may use zod to state them, and nothing else of ours or from npm.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { dependencyTypesNot: ['core'], pathNot: ['^src/domain/', '(^|/)node_modules/zod/'] },
    },

    // ---- the leaves and the pure libraries ------------------------------------------------------------------------
    {
      name: 'net-is-pure',
      comment:
        'net/ is pure address arithmetic (parse, format, classify) over node:net and may use errors.ts; importing a ' +
        'layer or a package would pull that into every caller, from config to the detectors.',
      severity: 'error',
      from: { path: '^src/net/' },
      to: { dependencyTypesNot: ['core'], pathNot: ['^src/net/', CROSS_CUTTING] },
    },
    {
      name: 'config-not-to-layers',
      comment:
        'config/ turns the environment into a frozen typed object that every layer receives; it may use errors, ' +
        'domain and net, but it describes settings, so it must not reach into the layers it configures (a firewall ' +
        'rule parser belongs to firewall/, and the service converts the configured text).',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: OURS, pathNot: ['^src/config/', CROSS_CUTTING, '^src/domain/', '^src/net/'] },
    },
    {
      name: 'native-is-a-leaf',
      comment:
        "src/native is the addon's typed face: it may use errors.ts, its own files, the raw binding types (and the " +
        'other cross-cutting modules) and net/ (pure address formatting, which imports nothing of ours), no package ' +
        'and no other folder. Anything more would make every consumer of the capture API depend on it.',
      severity: 'error',
      from: { path: '^src/native/' },
      to: { dependencyTypesNot: ['core'], pathNot: ['^src/native/', '^src/net/', CROSS_CUTTING, '^binding\\.d\\.ts$'] },
    },
    {
      name: 'store-is-a-leaf',
      comment:
        'store/ is the only place that talks SQL; it maps rows, it does not call services, the addon or the APIs. ' +
        'It may use the cross-cutting modules, domain/ (the types a table stores) and config types (database settings).',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: OURS, pathNot: ['^src/store/', CROSS_CUTTING, '^src/domain/', '^src/config/'] },
    },
    {
      name: 'store-takes-config-types-only',
      comment: 'The store receives its settings as arguments; it names the config type but never loads config.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/config/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'desktop-and-web-stores-are-apart',
      comment:
        'The desktop SQLite store and the Web API store (store/web) are separate databases with separate schemas; ' +
        'sharing a module would couple two products that ship apart.',
      severity: 'error',
      from: { path: '^src/store/(?!web/)' },
      to: { path: '^src/store/web/' },
    },
    {
      name: 'web-store-is-not-the-desktop-store',
      comment:
        'The reverse direction of desktop-and-web-stores-are-apart. The one shared piece is private-file.ts, the file ' +
        'modes of a private SQLite file (0700 directory, 0600 files), which both stores need and neither schema touches.',
      severity: 'error',
      from: { path: '^src/store/web/' },
      to: { path: '^src/store/(?!web/)', pathNot: '^src/store/private-file\\.ts$' },
    },
    {
      name: 'sql-drivers-only-in-store',
      comment:
        'One writer per table: only store/ opens a database or prepares statements. A service that needs a raw ' +
        'statement gets a repo method whose name says so.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/store/' },
      to: { path: SQL_DRIVERS },
    },
    {
      name: 'sql-builder-only-in-store',
      comment:
        'kysely outside store/ means SQL outside the store (a `sql` template in a service); move the query into a ' +
        'repo (type-only imports of kysely types are fine).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/store/' },
      to: { path: '(^|/)node_modules/kysely/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'only-load-ts-loads-the-addon',
      comment:
        'src/native/load.ts is the single require site of the .node file, so the addon is loaded lazily, once, with ' +
        'one error when it is missing. (eslint also flags a `.node` string literal, which a computed require hides ' +
        'from this tool.)',
      severity: 'error',
      from: { path: '^(src|test|bench)/', pathNot: '^src/native/load\\.ts$' },
      to: { path: '\\.node$' },
    },
    {
      name: 'http-is-glue-only',
      comment:
        'http/ is Koa glue shared by both servers (problem+json, validation, headers): it may use the bottom layers ' +
        'and config, never a service, the store, the addon or an API.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: OURS, pathNot: ['^src/http/', CROSS_CUTTING, '^src/(domain|config|net)/'] },
    },
    {
      name: 'no-koa-below-the-http-edge',
      comment:
        'Koa belongs to http/, the two APIs and cli. A detector, the firewall, the model or the store knowing about ' +
        'a request could not run without a server.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/http/', APIS, '^src/cli/'] },
      to: { path: KOA },
    },

    // ---- the middle: ml, firewall, detect, sensor -----------------------------------------------------------------
    {
      name: 'ml-not-to-upper-layers',
      comment:
        'ml/ scores flows; detect/ decides what a score means. ml importing detect, sensor, firewall, the store or an ' +
        'API would make the model depend on its consumers.',
      severity: 'error',
      from: { path: '^src/ml/' },
      to: { path: ['^src/(detect|sensor|firewall|store|cli)/', APIS] },
    },
    {
      name: 'firewall-not-to-upper-layers',
      comment:
        'firewall/ blocks addresses it is told to block; detect/ decides when. It keeps its own state in the store ' +
        'through repos but never imports detection, the sensor, ml or an API.',
      severity: 'error',
      from: { path: '^src/firewall/' },
      to: { path: ['^src/(detect|sensor|ml|cli)/', APIS] },
    },
    {
      name: 'detect-not-to-sensor-or-apis',
      comment:
        'detect/ turns flows and scores into findings and alerts; the sensor drives it. detect importing the sensor ' +
        'or an API would make detection impossible to run without the runtime that hosts it.',
      severity: 'error',
      from: { path: '^src/detect/' },
      to: { path: ['^src/(sensor|cli)/', APIS] },
    },
    {
      name: 'export-sees-only-flows-and-alerts',
      comment:
        'export/ turns flow records and alert views into outside formats (EVE JSON) and writes them; the sensor feeds ' +
        'it. It reads the domain, the flow record, config and the event bus, never the store, detection, ml, the ' +
        'firewall, the sensor or an API, so a format can change without touching what produces the data.',
      severity: 'error',
      from: { path: '^src/export/' },
      to: { path: ['^src/(store|detect|ml|firewall|sensor|cli)/', APIS] },
    },
    {
      name: 'sensor-not-to-apis',
      comment:
        'sensor/ is the runtime (capture -> live stats -> store -> detection) that both the CLI and the desktop API ' +
        'drive; it exposes its own types, the API maps them to JSON.',
      severity: 'error',
      from: { path: '^src/sensor/' },
      to: { path: ['^src/cli/', APIS] },
    },

    {
      name: 'notify-takes-alerts-not-layers',
      comment:
        'notify/ (desktop notifications, webhooks, syslog) receives new alerts from the event bus and keeps its webhook ' +
        'queue through a store repo; importing detection, the sensor, ml, the firewall, the addon or an API would tie ' +
        'where alerts go to how they are made. The composition root wires it; the desktop API only reads its status.',
      severity: 'error',
      from: { path: '^src/notify/' },
      to: { path: ['^src/(detect|sensor|ml|firewall|native|cli)/', APIS] },
    },
    {
      name: 'only-the-root-wires-notify',
      comment: 'Alert sinks are started and stopped by the composition root; a layer below importing them would send alerts twice.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/notify/', '^src/cli/'] },
      to: { path: '^src/notify/' },
    },

    // ---- the top: the APIs and the composition root ---------------------------------------------------------------
    {
      name: 'desktop-api-not-to-web-api',
      comment: 'The desktop API and the Web API are separate products; shared code lives below them (http/, domain/).',
      severity: 'error',
      from: { path: '^src/desktop-api/' },
      to: { path: '^src/web-api/' },
    },
    {
      name: 'web-api-not-to-desktop-api',
      comment: 'The reverse direction of desktop-api-not-to-web-api.',
      severity: 'error',
      from: { path: '^src/web-api/' },
      to: { path: '^src/desktop-api/' },
    },
    {
      name: 'only-app-imports-routes',
      comment: "An API's app.ts mounts its routes; nothing else does, so a route is reachable only through the app's middleware chain.",
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/(desktop-api|web-api)/app\\.ts$', '^src/[^/]+/routes/'] },
      to: { path: '^src/[^/]+/routes/' },
    },
    {
      name: 'routes-share-only-their-own-folder',
      comment: "Route files may share helpers (deps, input parsing) inside their own routes/ folder, not another API's.",
      severity: 'error',
      from: { path: '^src/([^/]+)/routes/' },
      to: { path: '^src/[^/]+/routes/', pathNot: '^src/$1/routes/' },
    },
    {
      name: 'routes-call-services',
      comment:
        'A handler validates, calls one service and maps the result to JSON. Importing the store, ml, detect, the ' +
        'addon or the firewall implementation would let it bypass the service layer.',
      severity: 'error',
      from: { path: `${APIS}routes/` },
      to: {
        path: '^src/(store|ml|detect|native|firewall)/',
        pathNot: '^src/(firewall|detect|ml)/types\\.ts$',
      },
    },
    {
      name: 'routes-take-contract-types-only',
      comment:
        'firewall/types.ts, detect/types.ts and ml/types.ts are the contracts the services implement; a route may ' +
        'name them (its deps and request actor types) with `import type`, but may not call anything in them.',
      severity: 'error',
      from: { path: `${APIS}routes/` },
      to: { path: '^src/(firewall|detect|ml)/types\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'cli-is-the-root',
      comment: 'cli/ is the only composition root: it imports everything and nothing in src imports it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },

    // ---- the dashboard page (browser code) ------------------------------------------------------------------------
    {
      name: 'web-is-browser-code',
      comment:
        'web/ is the dashboard page, bundled for the browser: it may import its own files and the browser libraries it ' +
        'is built with (uPlot, d3-geo, topojson-client, world-atlas, qrcode); anything else of npm would be bundled ' +
        'into the page unseen.',
      severity: 'error',
      from: { path: '^web/' },
      to: {
        path: '(^|/)node_modules/',
        pathNot: [
          '(^|/)node_modules/(uplot|d3-geo|d3-array|topojson-client|world-atlas|qrcode|@types/(d3-geo|topojson-client|topojson-specification|qrcode))/',
        ],
      },
    },
    {
      name: 'web-takes-api-types-only',
      comment:
        "The page reads the API's bodies with the API's own types (derived from the zod schemas), so a body is " +
        "defined once; it imports them as types only (the bundle carries none of the server's code), and only from " +
        'the schemas and domain/.',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^(src|test|bench)/', pathNot: '^src/(desktop-api/schemas|domain)/' },
    },
    {
      name: 'web-imports-no-server-values',
      comment: 'A value import of src/ would bundle server code (zod, node:net) into the page: types only.',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^src/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'server-not-to-web',
      comment: "The server serves the built page (dist/dashboard); it never imports the page's sources.",
      severity: 'error',
      from: { path: '^(src|bench)/' },
      to: { path: '^web/' },
    },

    // ---- tests and benchmarks -------------------------------------------------------------------------------------
    {
      name: 'src-not-to-test-or-bench',
      comment: 'Shipped code never depends on test, benchmark or evaluation code (it is not in the package and not reviewed as such).',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|eval)/' },
    },
    {
      name: 'test-not-to-bench',
      comment: 'Tests must pass without the benchmarks; a shared helper belongs in test/helpers/.',
      severity: 'error',
      from: { path: '^test/' },
      to: { path: '^bench/' },
    },
    {
      name: 'bench-only-to-test-helpers',
      comment:
        'A benchmark may reuse test/helpers/ (e.g. the local OIDC provider) and test/fixtures/ (captures, ' +
        'flows), never a test file: a test changing would then silently change what a benchmark measures.',
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: '^test/', pathNot: '^test/(helpers|fixtures)/' },
    },
    {
      name: 'eval-not-to-test-or-bench',
      comment:
        'The evaluation (eval/) replays its own captures through the shipped runtime; depending on a test or a ' +
        'benchmark would let a change there silently change the figures it reports.',
      severity: 'error',
      from: { path: '^eval/' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules'] },
    exclude: { path: ['^build/', '^dist/', '^\\.cache/'] },
    // Type imports are dependencies too; `type-only` marks them so single rules can allow them.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // NodeNext: `./x.js` in a .ts file names `./x.ts`.
    enhancedResolveOptions: {
      extensions: ['.ts', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
