/** The package's version, read once from its package.json (the nearest one above this file that is ours). */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

function readVersion(): string {
  for (let dir = __dirname, i = 0; i < 4; dir = path.dirname(dir), i++) {
    const file = path.join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'model-gateway' && pkg.version) return pkg.version;
  }
  return '0.0.0';
}

export const VERSION: string = readVersion();
