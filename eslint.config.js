// eslint parses the TypeScript of src, test, bench and eval. The import direction of the layers (STYLE.md §2) is checked by
// dependency-cruiser (.dependency-cruiser.cjs, `npm run lint:deps`), which sees the whole graph, type-only imports and
// cycles; flat-config `no-restricted-imports` blocks replace one another for a file that several of them match, so
// they cannot express layers. What stays here is a rule about a string rather than an import.
import tseslint from 'typescript-eslint';

export default [
  { ignores: ['node_modules/**', 'build/**', 'build-*/**', 'dist/**', '.cache/**', 'coverage/**'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'eval/**/*.ts', 'web/**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { sourceType: 'module' } },
    plugins: { '@typescript-eslint': tseslint.plugin },
  },
  {
    // The addon path is built from a `.node` string and loaded with a computed require, which no import graph sees.
    files: ['src/**/*.ts'],
    ignores: ['src/native/load.ts'],
    rules: {
      'no-restricted-syntax': ['error', { selector: 'Literal[value=/\\.node$/]', message: 'Only src/native/load.ts loads the .node addon.' }],
    },
  },
];
