/** The built package loads with `require` and `import`; the packed tarball installs, type-checks strictly and serves. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

describe('the packed tarball, as a TypeScript host installs it', () => {
  const scratch = path.join(root, '.pack-test', `host-${process.pid}`);
  let tarball: string;
  beforeAll(() => {
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(path.join(scratch, 'node_modules', 'model-gateway'), { recursive: true });
    // npm pack runs prepack, which builds dist/ first: a fresh clone packs a working package.
    execFileSync('npm', ['pack', '--pack-destination', scratch], { cwd: root, encoding: 'utf8', stdio: 'pipe' });
    tarball = path.join(scratch, readdirSync(scratch).find((f) => f.endsWith('.tgz')) as string);
    execFileSync('tar', ['xzf', tarball, '-C', path.join(scratch, 'node_modules', 'model-gateway'), '--strip-components=1']);
  }, 120_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('holds the build, the SQL migrations and the README, and no sources or tests', () => {
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n');
    expect(files).toEqual(expect.arrayContaining(['package/dist/index.js', 'package/dist/index.mjs', 'package/dist/index.d.ts', 'package/dist/index.d.mts', 'package/dist/stores/sql/001_init.sql', 'package/README.md',
      'package/bin/model-gateway.js', 'package/dist/cli/config.schema.json']));
    expect(files.filter((f) => f.includes('__tests__') || f.startsWith('package/lib/'))).toEqual([]);
  });

  it('ships a working binary and the config schema editors can use', () => {
    const bin = path.join(scratch, 'node_modules', 'model-gateway', 'bin', 'model-gateway.js');
    expect(execFileSync(process.execPath, [bin, 'help'], { encoding: 'utf8' })).toContain('model-gateway serve [--config gateway.yaml]');
    const schema = JSON.parse(readFileSync(path.join(scratch, 'node_modules', 'model-gateway', 'dist', 'cli', 'config.schema.json'), 'utf8')) as { title: string; required: string[] };
    expect(schema).toMatchObject({ title: 'model-gateway config', required: ['models'] });
  });

  it('@arethetypeswrong/cli finds no problem for node10, node16 (CJS and ESM) and bundler', () => {
    const out = execFileSync(path.join(root, 'node_modules', '.bin', 'attw'), [tarball, '--format', 'json'], { encoding: 'utf8' });
    expect((JSON.parse(out) as { problems: object }).problems).toEqual({});
  }, 60_000);

  it('type-checks in a strict host (skipLibCheck off), CommonJS and ES module, and serves', () => {
    const host = [
      "import express from 'express';",
      "import { createGatewayRouter, MemoryStore, localStandIn, type GatewayOptions, type MessagesAdapter, type ModelEntry } from 'model-gateway';",
      'const store = new MemoryStore();',
      "store.addKey('sk-host', { id: 'host' });",
      "store.credit({ callerId: 'host', amount: 1000, idempotencyKey: 'opening-host' });",
      "const upstream: MessagesAdapter = localStandIn();",
      "const models: ModelEntry[] = [{ id: 'm', capability: 'llm', upstream, pricing: { input: 1, output: 1 } }];",
      'const options: GatewayOptions = { store, models };',
      'const app = express();',
      'app.use(createGatewayRouter(options));',
      'export default app;',
    ].join('\n');
    writeFileSync(path.join(scratch, 'host.ts'), host);
    writeFileSync(path.join(scratch, 'host.mts'), host);
    const strict = { strict: true, skipLibCheck: false, noEmit: true, types: ['node'], esModuleInterop: true, target: 'ES2022' };
    writeFileSync(path.join(scratch, 'tsconfig.cjs.json'), JSON.stringify({ compilerOptions: { ...strict, module: 'commonjs', moduleResolution: 'node10' }, files: ['host.ts'] }));
    writeFileSync(path.join(scratch, 'tsconfig.esm.json'), JSON.stringify({ compilerOptions: { ...strict, module: 'node16', moduleResolution: 'node16' }, files: ['host.mts'] }));
    const tsc = path.join(root, 'node_modules', '.bin', 'tsc');
    for (const config of ['tsconfig.cjs.json', 'tsconfig.esm.json']) execFileSync(tsc, ['-p', config], { cwd: scratch, encoding: 'utf8' });
    const out = execFileSync(process.execPath, ['-e', [
      "const express = require('express'); const g = require('model-gateway');",
      "const s = new g.MemoryStore(); s.addKey('k', { id: 'c' });",
      "const app = express(); app.use(g.createGatewayRouter({ store: s, models: [{ id: 'm', capability: 'llm', upstream: g.localStandIn(), pricing: { input: 1 } }] }));",
      "const server = app.listen(0, '127.0.0.1', async () => {",
      "  const r = await fetch(`http://127.0.0.1:${server.address().port}/v1/models`, { headers: { authorization: 'Bearer k' } });",
      "  console.log(r.status, (await r.json()).data[0].id); server.close();",
      '});',
    ].join('\n')], { cwd: scratch, encoding: 'utf8' });
    expect(out.trim()).toBe('200 m');
  }, 60_000);
});
