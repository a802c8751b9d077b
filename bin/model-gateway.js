#!/usr/bin/env node
// The standalone gateway and its operator commands (see README, "Run it standalone").
require('../dist/cli/main.js').main(process.argv.slice(2)).then((code) => process.exit(code));
