/** The built package loads with `require` and with `import` (run after `npm run build`, as `npm test` does). */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');
const run = (args: string[]): string => execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' });

beforeAll(() => {
  if (!existsSync(path.join(root, 'dist', 'index.js')) || !existsSync(path.join(root, 'dist', 'index.mjs'))) {
    throw new Error('dist/ is missing: run `npm run build` first (`npm test` does).');
  }
});

it('loads with require by package name', () => {
  const out = run(['-e', "const g = require('model-gateway'); console.log(typeof g.createGatewayRouter, typeof g.MemoryStore, typeof g.anthropicAdapter)"]);
  expect(out.trim()).toBe('function function function');
});

it('loads with import by package name, sharing one copy with require', () => {
  const out = run(['--input-type=module', '-e', [
    "import { createGatewayRouter, MemoryStore, GatewayError } from 'model-gateway';",
    "import { createRequire } from 'node:module';",
    'const cjs = createRequire(import.meta.url)("model-gateway");',
    'console.log(typeof createGatewayRouter, MemoryStore === cjs.MemoryStore, GatewayError === cjs.GatewayError);',
  ].join('\n')]);
  expect(out.trim()).toBe('function true true');
});

it('ships type declarations', () => {
  expect(existsSync(path.join(root, 'dist', 'index.d.ts'))).toBe(true);
});
