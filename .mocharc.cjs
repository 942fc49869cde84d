'use strict';
// Mocha runs the TypeScript sources directly through tsx (no build step for tests).
// Mocha adds the files named on the command line to `spec` instead of replacing it, so the whole suite is the default
// only when no test file or glob is named: `npx mocha test/unit/net/address.test.ts` runs that file alone.
const named = process.argv.slice(2).some((a) => !a.startsWith('-') && (/\.test\.ts$/.test(a) || a.includes('*')));
module.exports = {
  'node-option': ['import=tsx'],
  extension: ['ts'],
  ...(named ? {} : { spec: ['test/**/*.test.ts'] }),
  require: ['test/helpers/setup.ts'],
  recursive: true,
  timeout: 30000,
  forbidOnly: Boolean(process.env.CI),
  reporter: 'spec',
};
