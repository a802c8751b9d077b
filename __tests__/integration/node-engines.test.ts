/** Every installed package, dev ones included, runs on the lowest Node this package claims, and the suite runs on that major. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { CODEX_VERSION, codexBinary } from '../helpers/codex';

const root = path.join(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string }; devDependencies: Record<string, string> };
const claimed = manifest.engines.node;
const lowest = semver.minVersion(claimed)?.version as string;

/** Every package folder under a node_modules, nested ones and scoped ones included. */
function packages(modules: string): string[] {
  if (!existsSync(modules)) return [];
  return readdirSync(modules).filter((name) => !name.startsWith('.')).flatMap((name) => {
    const dir = path.join(modules, name);
    if (name.startsWith('@')) return readdirSync(dir).flatMap((scoped) => [path.join(dir, scoped), ...packages(path.join(dir, scoped, 'node_modules'))]);
    return [dir, ...packages(path.join(dir, 'node_modules'))];
  }).filter((dir) => existsSync(path.join(dir, 'package.json')));
}

it('the engines field names a lowest version, and the suite runs on its major', () => {
  expect(lowest).toMatch(/^\d+\.\d+\.\d+$/);
  expect(semver.satisfies(process.versions.node, claimed)).toBe(true);
  expect(semver.major(process.versions.node)).toBe(semver.major(lowest));
});

it(`every installed package admits Node ${lowest}, the lowest the package claims`, () => {
  const installed = packages(path.join(root, 'node_modules'));
  expect(installed.length).toBeGreaterThan(100);
  const refusing = installed.flatMap((dir) => {
    const { name, version, engines } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string; version: string; engines?: { node?: string } };
    const node = engines?.node;
    return node === undefined || semver.satisfies(lowest, node) ? [] : [`${name}@${version} (node ${node})`];
  });
  expect(refusing).toEqual([]);
});

it('the agent CLIs the suite drives are pinned exactly, and installed at those versions (native binaries included)', () => {
  const version = (dir: string): string => (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  // Claude Code 2.1.197 is the last 2.1 release whose engines admit Node 20; Codex 0.169.0 is what docs/agent-clients-observed.md describes.
  expect(manifest.devDependencies).toMatchObject({ '@anthropic-ai/claude-code': '2.1.197', '@openai/codex': CODEX_VERSION });
  expect(version(path.join(root, 'node_modules', '@anthropic-ai', 'claude-code'))).toBe('2.1.197');
  expect(version(path.join(root, 'node_modules', '@openai', 'codex'))).toBe(CODEX_VERSION);
  // The binary comes from the platform package the wrapper aliases (npm:@openai/codex@<version>-<platform>-<arch>).
  expect(version(path.join(path.dirname(codexBinary()), '..', '..', '..'))).toBe(`${CODEX_VERSION}-${process.platform}-${process.arch}`);
});
