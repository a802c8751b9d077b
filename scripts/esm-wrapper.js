// Writes dist/index.mjs: an ES module that re-exports the CommonJS build by name, so `import` and `require` load one copy.
const fs = require('node:fs');
const path = require('node:path');
const dist = path.join(__dirname, '..', 'dist');
const names = Object.keys(require(path.join(dist, 'index.js'))).filter((n) => n !== '__esModule' && n !== 'default');
const lines = [
  "import cjs from './index.js';",
  ...names.map((n) => `export const ${n} = cjs.${n};`),
  '',
];
fs.writeFileSync(path.join(dist, 'index.mjs'), lines.join('\n'));
fs.writeFileSync(path.join(dist, 'index.d.mts'), "export * from './index.js';\n");
