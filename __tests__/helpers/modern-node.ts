/** The newest clients need Node 22 or later: `npm test` runs them on the suite's Node 24 (docs/testing.md). */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';

/** Fails the file at once, with the way to run it, on an older Node (a clear failure, never a skip). */
export function requireModernNode(what: string): void {
  if (semver.major(process.versions.node) < 22) {
    throw new Error(`${what} needs Node 22 or later; this is Node ${process.versions.node}. Run it as npm test does: npx jest ${expect.getState().testPath ?? ''}`);
  }
}

/** The version of a package as installed (its package.json found above its entry point: some export no ./package.json), resolved from `from`. */
export function installedVersion(name: string, from: string = __dirname): string {
  let dir: string;
  try {
    dir = path.dirname(require.resolve(`${name}/package.json`, { paths: [from] }));
  } catch {
    dir = path.dirname(require.resolve(name, { paths: [from] })); // its exports name no ./package.json
  }
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name: found, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version: string };
      if (found !== undefined && (found === name || dir.endsWith(`${path.sep}${name}`))) return version;
    }
    if (path.dirname(dir) === dir) throw new Error(`no package.json of ${name} above ${require.resolve(name, { paths: [from] })}`);
    dir = path.dirname(dir);
  }
}

/** A devDependency's spec in the package's manifest. */
export const devSpec = (name: string): string | undefined =>
  (JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies[name];
