// Jest's order with the long files first even on a clean clone: jest sorts by the durations in its cache,
// and without one (CI) by file size, which started fresh-clone (the longest by far) 233 s into a 436 s run.
// A file the cache has not timed takes its time from the table below (seconds: `npm test` on 2 busy cores, 2026-11).
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const KNOWN_SECONDS = {
  '__tests__/integration/fresh-clone.test.ts': 158,
  '__tests__/integration/cli-commands.test.ts': 53,
  '__tests__/integration/client-config.test.ts': 51,
  '__tests__/fuzz/bad-input.test.ts': 38,
  '__tests__/integration/cli-config.test.ts': 38,
  '__tests__/integration/cli-messages.test.ts': 31,
  '__tests__/integration/package.test.ts': 34,
  '__tests__/integration/kill-mid-batch.test.ts': 25,
  '__tests__/integration/store-contract.test.ts': 24,
  '__tests__/integration/cli.test.ts': 21,
  '__tests__/integration/multi-instance.test.ts': 20,
  '__tests__/integration/reliability.test.ts': 18,
  '__tests__/browser/what-it-shows.test.ts': 17,
  '__tests__/integration/upstream-connections.test.ts': 15,
  '__tests__/integration/cli-records.test.ts': 15,
  '__tests__/integration/install.test.ts': 13,
  '__tests__/integration/cli-responses-config.test.ts': 13,
  '__tests__/integration/examples-readme.test.ts': 40,
  '__tests__/integration/docs-snippets.test.ts': 25,
  '__tests__/integration/readme-snippets.test.ts': 20,
};
const root = path.join(__dirname, '..');

class LongFirst extends Sequencer {
  time(test) {
    return super.time(test) ?? (KNOWN_SECONDS[path.relative(root, test.path).split(path.sep).join('/')] ?? 0) * 1000;
  }
}
module.exports = LongFirst;
