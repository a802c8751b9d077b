/** A port another process holds: serve and `npm start` exit naming the port and the setting that moves it, in one line, no stack. */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { processEnv, runBinaryAsync, watch } from '../helpers/binary';
import { tempDirs } from '../helpers/local';

const dirs = tempDirs();
const root = path.join(__dirname, '..', '..');
let taken: net.Server;
let port: number;
beforeAll(async () => {
  taken = await new Promise<net.Server>((resolve) => { const s = net.createServer().listen(0, '127.0.0.1', () => resolve(s)); });
  port = (taken.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => { taken.close(() => resolve()); }));

const config = (server: string, admin = ''): string => `
server: { ${server} }
upstreams: { a: { type: anthropic, baseURL: "http://127.0.0.1:9" } }
models: [{ id: m, capability: llm, upstream: a, free: true }]
admin: { ${admin}tokens: [{ name: ops, token: port-in-use-token-0123, access: write }] }
`;
const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => processEnv({ MODEL_GATEWAY_CONFIG: undefined, ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, ...extra });

it.each([
  ['server.port', (p: number) => config(`port: ${p}`), (p: number) => `port ${p} on 127.0.0.1 is in use by another process: stop it, or set another port in server.port (\`port: \${PORT:-8787}\` takes PORT)`],
  ['admin.port', (p: number) => config('port: 0', `port: ${p}, `), (p: number) => `port ${p} on 127.0.0.1 is in use by another process: stop it, or set another port in admin.port`],
])('serve with %s taken exits 1 with one line naming the port and the setting', async (_, text, message) => {
  const file = path.join(await dirs.make(), 'gateway.yaml');
  writeFileSync(file, text(port));
  expect(await runBinaryAsync(['serve', '--config', file], env())).toEqual({ code: 1, out: '', err: `model-gateway: ${message(port)}\n` });
});

it('a zero-config start on a PORT taken names PORT', async () => {
  const out = await runBinaryAsync(['serve'], env({ ANTHROPIC_API_KEY: 'sk-ant-test', PORT: String(port) }));
  expect(out).toMatchObject({ code: 1, out: '', err: `model-gateway: port ${port} on 127.0.0.1 is in use by another process: stop it, or set another port in PORT\n` });
});

it('`npm start` on a PORT taken exits non-zero with one line naming the port and PORT, no stack', async () => {
  const npmEnv = Object.fromEntries(Object.entries(env({ PORT: String(port) })).filter(([name]) => !/^npm_/i.test(name)));
  const demo = watch(spawn('npm', ['start', '--silent'], { cwd: root, env: npmEnv }));
  expect(await demo.exited).not.toBe(0);
  expect(demo.out()).toBe(`npm start: port ${port} is in use by another process: stop it, or set PORT (PORT=0 picks a free one)\n`);
}, 60_000);
