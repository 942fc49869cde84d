// Lint = the dependency direction of STYLE.md §2, enforced by rule rather than review memory:
//   routes -> services -> {store, native, ml, detect, firewall} -> libraries; store and native are leaves;
//   desktop-api and web-api never import each other; only an API's app.ts imports its routes.
import tseslint from 'typescript-eslint';

const layer = (files, patterns, message) => ({
  files,
  rules: {
    'no-restricted-imports': ['error', { patterns: patterns.map((group) => ({ group: [group], message })) }],
  },
});

export default [
  { ignores: ['node_modules/**', 'build/**', 'build-*/**', 'dist/**', '.cache/**'] },
  {
    files: ['src/**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { sourceType: 'module' } },
    plugins: { '@typescript-eslint': tseslint.plugin },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/*/app.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/routes/*', '**/routes/**'], message: 'Only an API app.ts imports its routes.' }] }],
    },
  },
  layer(
    ['src/store/**/*.ts'],
    ['**/desktop-api/**', '**/web-api/**', '**/ml/**', '**/detect/**', '**/firewall/**', '**/native/**', 'koa', '@koa/*', '**/routes/**'],
    'store is a leaf: it must not import services, Koa, the APIs or native.',
  ),
  layer(
    ['src/native/**/*.ts'],
    ['**/store/**', '**/desktop-api/**', '**/web-api/**', '**/ml/**', '**/detect/**', '**/firewall/**', 'koa', '@koa/*', '**/routes/**'],
    'src/native is a leaf: it must not import the store, services, Koa or the APIs.',
  ),
  layer(['src/desktop-api/**/*.ts'], ['**/web-api/**', '**/routes/**'], 'desktop-api and web-api never import each other; only app.ts imports routes.'),
  layer(['src/desktop-api/app.ts'], ['**/web-api/**'], 'desktop-api and web-api never import each other.'),
  layer(['src/web-api/**/*.ts'], ['**/desktop-api/**', '**/routes/**'], 'desktop-api and web-api never import each other; only app.ts imports routes.'),
  layer(['src/web-api/app.ts'], ['**/desktop-api/**'], 'desktop-api and web-api never import each other.'),
  layer(['src/errors.ts', 'src/config/**/*.ts'], ['koa', '@koa/*', '**/store/**', '**/desktop-api/**', '**/web-api/**'], 'errors and config are used everywhere and import no layers.'),
  layer(
    ['src/ml/**/*.ts', 'src/detect/**/*.ts', 'src/firewall/**/*.ts'],
    ['koa', '@koa/*', '**/desktop-api/**', '**/web-api/**', '**/routes/**'],
    'Services below the APIs never import Koa or an API.',
  ),
  {
    files: ['src/**/*.ts'],
    ignores: ['src/native/load.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "Literal[value=/\\.node$/]", message: 'Only src/native/load.ts loads the .node addon.' },
      ],
    },
  },
];
