/** The README is for users and stays short: at most 25,000 bytes (method and full results live in docs/). */
import fs from 'node:fs';
import path from 'node:path';

it('README.md is at most 25,000 bytes', () => {
  expect(fs.statSync(path.join(__dirname, '../../README.md')).size).toBeLessThanOrEqual(25_000);
});
