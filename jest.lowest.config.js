/**
 * The files `npm test` runs a second time, on the lowest Node the package admits (engines.node, Node 20), after the
 * whole suite on Node 24 (scripts/lowest-node.js starts it): those whose subject depends on the runtime (the official
 * SDKs as clients, fetch, undici and node:http upstream connections, SSE reads and writes, the binary and its config as
 * a process, the packed tarball installed, required and imported). docs/testing.md says why these and what they cost.
 */
const base = require('./jest.config');

const LOWEST_NODE_FILES = require('./scripts/lowest-node-files');

module.exports = {
  ...base,
  testMatch: LOWEST_NODE_FILES.map((file) => `<rootDir>/${file}`),
};
