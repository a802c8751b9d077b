/** The package's version, read once from its package.json (one level above lib/ and dist/). */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const VERSION: string = (JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
