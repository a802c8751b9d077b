/**
 * Past releases built from git history (scripts/build-release.js, run as its own process: the
 * compiler is several times slower inside a Jest worker), and the migrations each shipped.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

/** The compiled module of release `commit` that exports its PostgresStore; built on first use. */
export function releaseStoreModule(commit: string): string {
  try {
    return execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build-release.js'), commit], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (err) {
    throw new Error(String((err as { stderr?: string }).stderr || err));
  }
}

/** The schema versions release `commit` ships (its migration files' numbers), in order. */
export function releaseMigrations(commit: string): number[] {
  const files = execFileSync('git', ['ls-tree', '-r', '--name-only', `${commit}^{commit}`, 'lib'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26 }).split('\n');
  return files.flatMap((f) => /\/sql\/(\d+)_[^/]+\.sql$/.exec(f)?.[1] ?? []).map(Number).sort((x, y) => x - y);
}
