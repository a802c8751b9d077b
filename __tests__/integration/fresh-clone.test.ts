/**
 * A fresh clone of the committed HEAD, as a user meets it: `npm ci` (which builds through
 * `prepare`), then the README's first commands exactly as written, each answering a real request.
 * One clone serves both commands (about 20 s and 260 MB of node_modules, removed after).
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { watch, type Running } from '../helpers/binary';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { UPSTREAM_KEY, type GatedFake } from '../helpers/fake-server';

const run = promisify(execFile);
/**
 * A first start in a fresh clone compiles with ts-node (`npm start`) or resolves the bin through npx:
 * on a busy machine that takes well over 30 s. A broken start exits, which fails at once; the bound
 * is only for a start that hangs.
 */
const START_BOUND_MS = 150_000;
const root = path.join(__dirname, '..', '..');
const clone = mkdtempSync(path.join(os.tmpdir(), 'mgw-clone-'));
const host = mkdtempSync(path.join(os.tmpdir(), 'mgw-host-'));
let upstream: GatedFake;

/** A user's environment: none of the npm run that started jest, none of this checkout's node_modules/.bin. */
const userEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { PORT: '0', ...extra };
  for (const [name, value] of Object.entries(process.env)) {
    if (/^npm_|^INIT_CWD$|^(ANTHROPIC|OPENAI)_|^MODEL_GATEWAY_/i.test(name) || name in env) continue;
    env[name] = name === 'PATH' ? value?.split(path.delimiter).filter((dir) => !dir.includes(`node_modules${path.sep}.bin`)).join(path.delimiter) : value;
  }
  return env;
};

/** The processes of a process group still running (not exited and waiting to be reaped): their command lines. */
const living = (group: number): string[] => execFileSync('ps', ['-eo', 'pgid=,stat=,args='], { encoding: 'utf8' }).split('\n')
  .map((line) => /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line)).filter((m): m is RegExpExecArray => m !== null && Number(m[1]) === group && !m[2]?.startsWith('Z'))
  .map((m) => m[3] as string);

/** Starts a shell command in the clone (or `cwd`), in a process group of its own (npm starts children). */
function startInClone(command: string, env: NodeJS.ProcessEnv, cwd = clone): Running {
  return watch(spawn('bash', ['-c', command], { cwd, env, detached: true }));
}
async function end(running: Running): Promise<void> {
  if (running.child.exitCode === null && running.child.signalCode === null) process.kill(-(running.child.pid as number), 'SIGTERM');
  await running.exited;
}

beforeAll(async () => {
  upstream = await startAnthropicFake();
  execFileSync('git', ['clone', '--quiet', root, clone]);
  expect(execFileSync('git', ['-C', clone, 'rev-parse', 'HEAD'], { encoding: 'utf8' })).toBe(execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8' }));
  await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: clone, env: userEnv() });
}, 300_000);
afterAll(async () => {
  await upstream.close();
  rmSync(clone, { recursive: true, force: true });
  rmSync(host, { recursive: true, force: true });
});

it('`npm start` serves the demo; the curl line it prints, run as printed, gets an answer', async () => {
  const demo = startInClone('npm start', userEnv());
  try {
    const line = (await demo.waitFor(/^try: (curl .*)$/m, START_BOUND_MS))[1] as string;
    expect(demo.out()).toContain('LOCAL STAND-IN');
    const { stdout } = await run('bash', ['-c', line], { env: userEnv() });
    expect(JSON.parse(stdout)).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text' }] });
  } finally {
    await end(demo);
  }
}, START_BOUND_MS + 30_000);

it('`ANTHROPIC_API_KEY=… npx model-gateway serve` starts zero-config; the banner\'s lines, pasted, get a 200 from the upstream', async () => {
  const gateway = startInClone(`ANTHROPIC_API_KEY=${UPSTREAM_KEY} npx model-gateway serve`, userEnv({ ANTHROPIC_BASE_URL: upstream.url }));
  try {
    const block = (await gateway.waitFor(/Paste these lines into a shell:\n\n([\s\S]*?)\n\n/, START_BOUND_MS))[1] as string;
    const { stdout } = await run('bash', ['-e', '-c', block], { env: userEnv() });
    const [credited, answer] = stdout.trimEnd().split('\n');
    expect(JSON.parse(credited as string)).toMatchObject({ applied: true });
    expect(JSON.parse(answer as string)).toMatchObject({ type: 'message', content: [{ type: 'text', text: 'Hello from the fake upstream' }] });
  } finally {
    await end(gateway);
  }
}, START_BOUND_MS + 30_000);

it('SIGTERM to the process `npx model-gateway serve` started, in an app that depends on the package, drains the gateway and leaves no process behind', async () => {
  writeFileSync(path.join(host, 'package.json'), JSON.stringify({ name: 'host-app', private: true, dependencies: { 'model-gateway': `file:${clone}` } }));
  await run('npm', ['install', '--no-audit', '--no-fund', '--offline'], { cwd: host, env: userEnv() });
  // npx as the README writes it, as a process manager starts it: no shell of ours between (npx's pid is the one signalled).
  const npx = watch(spawn('npx', ['model-gateway', 'serve'], { cwd: host, env: userEnv({ ANTHROPIC_API_KEY: UPSTREAM_KEY, ANTHROPIC_BASE_URL: upstream.url }), detached: true }));
  const group = npx.child.pid as number;
  const gone = new Promise<void>((resolve) => { npx.child.once('close', () => resolve()); }); // every process holding its output ended
  try {
    const url = (await npx.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/, START_BOUND_MS))[1] as string;
    await npx.waitFor(/Paste these lines/);
    expect((await fetch(`${url}/livez`)).status).toBe(200);
    process.kill(group, 'SIGTERM'); // npx's own process only, as `docker stop` or a process manager sends it
    const bound = new Promise<string>((resolve) => { setTimeout(() => resolve('still running'), 30_000).unref(); });
    expect(await Promise.race([gone.then(() => 'ended'), bound])).toBe('ended');
    expect(npx.out()).toMatch(/draining: new requests get 529[\s\S]*\nstopped\n/);
    await expect(fetch(`${url}/livez`)).rejects.toThrow(); // the port is closed
    expect(living(group)).toEqual([]); // no orphan left in npx's group (an exited one waiting to be reaped is not living)
  } finally {
    try { process.kill(-group, 'SIGKILL'); } catch { /* none left */ }
  }
}, START_BOUND_MS + 60_000);
