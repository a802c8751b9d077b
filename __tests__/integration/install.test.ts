/**
 * Installs the package as the README's "Install" tells a user to until it is published: `npm pack`
 * here, then `npm install <tarball> express` in a fresh host app outside the checkout. The host
 * requires and imports it, serves a request through it, and runs the binary with npx.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.join(__dirname, '..', '..');
const host = mkdtempSync(path.join(os.tmpdir(), 'mgw-host-'));

/** A user's environment: none of the npm run that started jest, none of this checkout's node_modules/.bin. */
const userEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^npm_|^INIT_CWD$/i.test(name)) continue;
    env[name] = name === 'PATH' ? value?.split(path.delimiter).filter((dir) => !dir.includes(`node_modules${path.sep}.bin`)).join(path.delimiter) : value;
  }
  return env;
};

beforeAll(async () => {
  // dist/ is built by `npm test` first: packing must not rebuild it under the tests that use it.
  execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', host], { cwd: root, stdio: 'pipe' });
  const tarball = readdirSync(host).find((f) => f.endsWith('.tgz')) as string;
  writeFileSync(path.join(host, 'package.json'), JSON.stringify({ name: 'host-app', version: '1.0.0', private: true }));
  await run('npm', ['install', `./${tarball}`, 'express@5', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: host, env: userEnv() });
}, 240_000);
afterAll(() => rmSync(host, { recursive: true, force: true }));

it('is a dependency of the host, resolved from the tarball', () => {
  const manifest = JSON.parse(readFileSync(path.join(host, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  expect(manifest.dependencies['model-gateway']).toMatch(/^file:model-gateway-\d+\.\d+\.\d+\.tgz$/);
  expect(readdirSync(path.join(host, 'node_modules', 'model-gateway'))).toEqual(expect.arrayContaining(['dist', 'bin', 'package.json']));
});

it('serves a request from a host app that requires it, and loads with import', async () => {
  writeFileSync(path.join(host, 'server.js'), [
    "const express = require('express');",
    "const { createGatewayRouter, MemoryStore, localStandIn } = require('model-gateway');",
    'const store = new MemoryStore();',
    "store.addKey('sk-host', { id: 'host' });",
    "store.credit({ callerId: 'host', amount: 1000, idempotencyKey: 'opening-host' });",
    "const models = [{ id: 'demo', capability: 'llm', upstream: localStandIn(), pricing: { input: 1, output: 1 } }];",
    'const app = express();',
    'app.use(createGatewayRouter({ store, models }));',
    "const server = app.listen(0, '127.0.0.1', async () => {",
    '  const res = await fetch(`http://127.0.0.1:${server.address().port}/v1/messages`, {',
    "    method: 'POST', headers: { 'x-api-key': 'sk-host', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },",
    "    body: JSON.stringify({ model: 'demo', max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] }),",
    '  });',
    '  const body = await res.json();',
    '  console.log(res.status, body.type, body.model);',
    '  server.close();',
    '});',
  ].join('\n'));
  const { stdout } = await run(process.execPath, ['server.js'], { cwd: host, env: userEnv() });
  expect(stdout.trim()).toBe('200 message demo');
  const imported = await run(process.execPath, ['--input-type=module', '-e', "import { createGatewayRouter } from 'model-gateway'; console.log(typeof createGatewayRouter);"], { cwd: host, env: userEnv() });
  expect(imported.stdout.trim()).toBe('function');
  // The store contract suite, for a store author: model-gateway/testing, by require and by import.
  const required = await run(process.execPath, ['-e', "console.log(typeof require('model-gateway/testing').runStoreContract)"], { cwd: host, env: userEnv() });
  const importedSuite = await run(process.execPath, ['--input-type=module', '-e', "import { runStoreContract } from 'model-gateway/testing'; console.log(typeof runStoreContract);"], { cwd: host, env: userEnv() });
  expect([required.stdout.trim(), importedSuite.stdout.trim()]).toEqual(['function', 'function']);
}, 60_000);

it('runs the binary through npx', async () => {
  const { stdout } = await run('npx', ['--no-install', 'model-gateway', 'help'], { cwd: host, env: userEnv() });
  expect(stdout).toContain('model-gateway serve [--config gateway.yaml]');
}, 60_000);
