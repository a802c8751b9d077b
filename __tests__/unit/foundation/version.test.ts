/** lib/foundation/version.ts: the version is the package's own, read from its package.json. */
import fs from 'node:fs';
import path from 'node:path';
import { VERSION } from '../../../lib/foundation/version';

it("is the package.json's version", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string };
  expect(VERSION).toBe(pkg.version);
  expect(VERSION).not.toBe('0.0.0');
});
