/**
 * The files `npm test` runs a second time, on the lowest Node the package admits (engines.node, Node 20), after the
 * whole suite on Node 24 (scripts/lowest-node.js starts it): the unit tests, and the integration files whose subject
 * depends on the runtime: the official SDKs as clients, fetch, undici and node:http upstream connections and stream
 * reads, the binary as a process, and the packed tarball installed, required and imported. docs/testing.md says why.
 */
const base = require('./jest.config');

const LOWEST_NODE_FILES = require('./scripts/lowest-node-files');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/__tests__/unit/**/*.test.ts', ...LOWEST_NODE_FILES.map((file) => `<rootDir>/${file}`)],
};
