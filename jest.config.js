/** Jest: TypeScript through ts-jest; integration tests use real HTTP, PostgreSQL and Redis. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/__tests__'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  setupFilesAfterEnv: ['<rootDir>/__tests__/helpers/console-guard.ts'],
  testTimeout: 30000,
  maxWorkers: 2,
  testSequencer: '<rootDir>/scripts/test-sequencer.js', // the long files first, even with no jest cache (CI)
};
