/** README, docs and examples name one set of gateway ports, the binary's: 8787 for the public API (and, by default, everything), 8788 for an operator port apart. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');
const files = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
  ...readdirSync(path.join(root, 'examples')).map((f) => `examples/${f}`)];
/** A gateway port as the texts write one: an address on this machine, a config `port:`, a PORT default. */
const GATEWAY_PORT = /(?:127\.0\.0\.1|localhost):(\d+)|\bport: (\d+)|PORT(?::-| \?\? )(\d+)/g;
/** The services a gateway uses, not a gateway's own port. */
const SERVICES = new Set(['5432', '6379']);

it('every gateway port in README, docs and examples is 8787 or 8788', () => {
  const found = files.flatMap((file) => [...readFileSync(path.join(root, file), 'utf8').matchAll(GATEWAY_PORT)]
    .map((m) => [file, m[1] ?? m[2] ?? m[3]] as const).filter(([, port]) => !SERVICES.has(port as string)));
  expect(found.length).toBeGreaterThan(5);
  expect(found.filter(([, port]) => port !== '8787' && port !== '8788')).toEqual([]);
});
