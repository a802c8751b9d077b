// Builds dist/ from an empty folder (nothing stale is packed): the compiled library without source
// maps (the sources are not shipped), the ES module wrapper, the SQL migrations, the dashboard's
// files and the config schema.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const dist = path.join(root, 'dist');
fs.rmSync(dist, { recursive: true, force: true });
try {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
} catch (err) {
  process.exit(err.status ?? 1); // tsc printed why
}
require('./esm-wrapper');
fs.cpSync(path.join(root, 'lib', 'stores', 'postgres', 'sql'), path.join(dist, 'stores', 'postgres', 'sql'), { recursive: true });
fs.cpSync(path.join(root, 'lib', 'admin', 'dashboard', 'public'), path.join(dist, 'admin', 'dashboard', 'public'), { recursive: true, filter: (f) => !f.endsWith('.d.ts') });
const { editorSchema } = require(path.join(dist, 'cli', 'config-schema.js'));
fs.writeFileSync(path.join(dist, 'cli', 'config.schema.json'), JSON.stringify(editorSchema(), null, 2));
