'use strict';
// Mocha runs the TypeScript sources directly through tsx (no build step for tests).
module.exports = {
  'node-option': ['import=tsx'],
  extension: ['ts'],
  spec: ['test/**/*.test.ts'],
  require: ['test/helpers/setup.ts'],
  recursive: true,
  timeout: 30000,
  forbidOnly: Boolean(process.env.CI),
  reporter: 'spec',
};
