/** The built package loads with `require` and `import`; the packed tarball holds what its README links to, installs, type-checks strictly and serves. */
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
    // dist/ is built by `npm test` first (and by `prepare` on npm ci and npm pack, see fresh-clone.test.ts):
    // packing here must not rebuild it under the tests running it.
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', scratch], { cwd: root, encoding: 'utf8', stdio: 'pipe' });
    tarball = path.join(scratch, readdirSync(scratch).find((f) => f.endsWith('.tgz')) as string);
    execFileSync('tar', ['xzf', tarball, '-C', path.join(scratch, 'node_modules', 'model-gateway'), '--strip-components=1']);
  }, 120_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /** The tarball's files, relative to the package's root. */
  const shipped = (): string[] => execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''));
  const installed = (file: string): string => path.join(scratch, 'node_modules', 'model-gateway', file);

  it('holds the build, the SQL migrations, the README and what it links to, and no sources or tests', () => {
    const files = shipped();
    expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.mjs', 'dist/index.d.ts', 'dist/index.d.mts', 'dist/stores/postgres/sql/001_init.sql', 'README.md',
      'bin/model-gateway.js', 'dist/cli/config.schema.json', 'examples/gateway.yaml', 'docs/operations.md', 'LICENSE', 'CHANGELOG.md', 'SECURITY.md']));
    expect(files.filter((f) => f.includes('__tests__') || f.startsWith('lib/'))).toEqual([]);
  });

  it('every relative link of the README and the shipped docs resolves inside the tarball, as does the sample config\'s schema', () => {
    const files = new Set(shipped());
    const documents = [...files].filter((f) => f.endsWith('.md'));
    const dead: string[] = [];
    let links = 0;
    for (const doc of documents) {
      for (const [, target] of readFileSync(installed(doc), 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target as string) || (target as string).startsWith('#')) continue;
        links++;
        const file = path.posix.normalize(path.posix.join(path.posix.dirname(doc), (target as string).split('#')[0] as string));
        if (!files.has(file) && ![...files].some((f) => f.startsWith(`${file}/`))) dead.push(`${doc}: ${target}`);
      }
    }
    expect(links).toBeGreaterThan(5);
    expect(dead).toEqual([]);
    const schema = /\$schema=(\S+)/.exec(readFileSync(installed('examples/gateway.yaml'), 'utf8'))?.[1] as string;
    expect(files.has(path.posix.normalize(path.posix.join('examples', schema)))).toBe(true);
  });

  it('ships no source map naming a file it does not ship', () => {
    const files = new Set(shipped());
    const named: string[] = [];
    for (const file of files) {
      if (file.endsWith('.map')) {
        const map = JSON.parse(readFileSync(installed(file), 'utf8')) as { sources: string[]; sourceRoot?: string };
        named.push(...map.sources.map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(file), map.sourceRoot ?? '', s))));
      } else if (/\.(c|m)?js$|\.d\.(c|m)?ts$/.test(file)) {
        const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(installed(file), 'utf8'))?.[1];
        if (url) named.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), url)));
      }
    }
    expect(named.filter((f) => !files.has(f))).toEqual([]);
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
      "import { runStoreContract, type ContractStore } from 'model-gateway/testing';",
      'const store = new MemoryStore();',
      "store.addKey('sk-host', { id: 'host' });",
      "store.credit({ callerId: 'host', amount: 1000, idempotencyKey: 'opening-host' });",
      "const upstream: MessagesAdapter = localStandIn();",
      "const models: ModelEntry[] = [{ id: 'm', capability: 'llm', upstream, pricing: { input: 1, output: 1 } }];",
      'const options: GatewayOptions = { store, models };',
      'const app = express();',
      'app.use(createGatewayRouter(options));',
      'export default app;',
      'export const contract: [typeof runStoreContract, ContractStore] = [runStoreContract, store]; // the suite takes the built-in store',
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
      "if (typeof require('model-gateway/testing').runStoreContract !== 'function') throw new Error('no model-gateway/testing');",
      "const app = express(); app.use(g.createGatewayRouter({ store: s, models: [{ id: 'm', capability: 'llm', upstream: g.localStandIn(), pricing: { input: 1 } }] }));",
      "const server = app.listen(0, '127.0.0.1', async () => {",
      "  const r = await fetch(`http://127.0.0.1:${server.address().port}/v1/models`, { headers: { authorization: 'Bearer k' } });",
      "  console.log(r.status, (await r.json()).data[0].id); server.close();",
      '});',
    ].join('\n')], { cwd: scratch, encoding: 'utf8' });
    expect(out.trim()).toBe('200 m');
  }, 60_000);
});
