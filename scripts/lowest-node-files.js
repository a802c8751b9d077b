// The files run again on the lowest Node the package admits (jest.lowest.config.js; docs/testing.md says why). Globs allowed.
module.exports = [
  '__tests__/unit/wire/**/*.test.ts',
  '__tests__/unit/upstreams/**/*.test.ts',
  '__tests__/unit/cli/**/*.test.ts',
  '__tests__/integration/node-engines.test.ts',
  '__tests__/integration/messages-sdk.test.ts',
  '__tests__/integration/sdk-models.test.ts',
  '__tests__/integration/chat-completions.test.ts',
  '__tests__/integration/responses.test.ts',
  '__tests__/integration/agents-sdk.test.ts',
  '__tests__/integration/node-http-fetch.test.ts',
  '__tests__/integration/upstream-connections.test.ts',
  '__tests__/integration/messages-wire.test.ts',
  '__tests__/integration/cli-serve.test.ts',
  '__tests__/integration/install.test.ts',
];
