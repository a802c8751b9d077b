/**
 * What the binary tells an operator, as processes: each command's own --help (its options, their units and defaults), an option
 * of another command refused by name, a config's misspelt key named with the key it meant, a YAML error on a SIGHUP reload
 * said whole, and a memory store without an admin API (no key can ever be made) warned of at start.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { processEnv, runBinary, runBinaryAsync, startBinary } from '../helpers/binary';

const dir = mkdtempSync(path.join(os.tmpdir(), 'mgw-messages-'));
const env = processEnv({ MODEL_GATEWAY_CONFIG: undefined });
const cli = (...args: string[]) => runBinary(args, env);
const write = (name: string, text: string): string => {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, text);
  return file;
};
const MODELS = 'upstreams: { anthropic: { type: anthropic, baseURL: "http://127.0.0.1:9", apiKey: k } }\nmodels: [{ id: claude, capability: llm, upstream: anthropic, free: true }]\n';
const ADMIN = 'admin: { tokens: [{ name: ops, token: messages-admin-0123456789, access: write }] }\n';

it('each command\'s --help explains its options: what --create-account does, the unit of amounts, --grace-seconds\' default', () => {
  const help = (command: string): string => {
    const run = cli(command, '--help');
    expect(run).toMatchObject({ code: 0, err: '' });
    expect(run.out).toMatch(new RegExp(`^usage: model-gateway ${command} `));
    expect(run.out).toContain('exit codes: 0 done, 1 failed');
    return run.out;
  };
  expect(help('credit')).toMatch(/<amount> is an integer of minor units[^]*negative for a\s+debit[^]*--create-account +open the caller's account when it has none/);
  expect(help('keys')).toMatch(/--grace-seconds n +rotate: whole seconds the old key keeps working after the rotation \(default 0: it stops at once\)/);
  expect(help('reviews')).toMatch(/--charge <amount> +resolve: charge this many more minor units \(an integer, 0 or more\)/);
  expect(help('client-config')).toMatch(/--url <gateway URL> +required/);
  expect(cli('help', 'keys').out).toBe(cli('keys', '--help').out);
  expect(cli('--help').out).toContain('model-gateway <command> --help explains a command and each of its options.');
  expect(cli('--help').out).not.toBe(cli('keys', '--help').out);
});

it('an option of another command is refused, naming the one meant', () => {
  expect(cli('keys', 'create', 'acme', '--model', 'claude', '--config', write('models', MODELS))).toMatchObject({
    code: 2, out: '', err: expect.stringMatching(/^model-gateway: --model is not an option of keys; did you mean --models\?\nusage: model-gateway keys create/),
  });
});

it('a misspelt key is named, with the key it likely meant, by validate and serve alike', async () => {
  const file = write('typo', MODELS.replace('models:', 'modles:'));
  const [validated, served] = await Promise.all([runBinaryAsync(['validate', '--config', file], env), runBinaryAsync(['serve', '--config', file], env)]);
  const message = 'model-gateway: config: modles: unknown key; did you mean "models"? (allowed here: server, store, redis, limits, upstreams, models, admin, metrics, health, logging, responses)\n';
  expect(validated).toMatchObject({ code: 2, err: message });
  expect(served).toMatchObject({ code: 2, err: message });
  expect(cli('validate', '--config', write('nested', `${MODELS}server: { prot: 0 }\n`))).toMatchObject({ code: 2, err: expect.stringContaining('config: server.prot: unknown key; did you mean "port"?') });
});

it('a memory store without an admin section is warned of at start and by validate, naming both fixes; with one, no warning', async () => {
  const bare = write('bare', `server: { port: 0 }\n${MODELS}`);
  const warning = /warning: a memory store and no admin section: no key can ever be made, so every request gets 401\. Add an admin section \(admin: .*\) and make keys through its API or dashboard, or use a postgres store/;
  expect(cli('validate', '--config', bare)).toMatchObject({ code: 0, out: expect.stringMatching(warning) });
  expect(JSON.parse(cli('validate', '--config', bare, '--json').out)).toMatchObject({ valid: true, warnings: [expect.stringMatching(warning)] });
  const gw = startBinary(['serve', '--config', bare], env);
  try {
    await gw.waitFor(/mounts: .*\n/);
    await gw.waitFor(warning);
  } finally {
    expect(await gw.stop()).toBe(0);
  }
  expect(cli('validate', '--config', write('with-admin', `${MODELS}${ADMIN}`)).out).not.toContain('warning');
}, 30_000);

it('a SIGHUP reload of a file with a YAML error is refused with the whole error: where, the line, the cause; docs/operations.md shows it as printed', async () => {
  const file = write('reload', `server: { port: 0 }\n${MODELS}${ADMIN}`);
  const broken = `server: { port: 0 }\nupstreams:\n  anthropic: { type: anthropic, baseURL: \${ANTHROPIC_BASE_URL} }\nmodels: [{ id: claude, capability: llm, upstream: anthropic, free: true }]\n${ADMIN}`;
  const shown = cli('validate', '--config', write('broken', broken));
  expect(shown.code).toBe(2);
  expect(readFileSync(path.join(__dirname, '..', '..', 'docs', 'operations.md'), 'utf8')).toContain(`\n\`\`\`\n${shown.err}\`\`\`\n`);
  const gw = startBinary(['serve', '--config', file], env);
  try {
    await gw.waitFor(/dashboard: .*\n/); // the summary's last line
    writeFileSync(file, broken);
    gw.child.kill('SIGHUP');
    const refused = await gw.waitFor(/reload refused, the old config keeps serving: the file is not valid YAML or JSON: (.*)\n(.*)\n(.*)\n(.*)\n/);
    expect(refused.slice(1)).toEqual([
      expect.stringMatching(/^Unexpected flow-map-start at node end at line 3, column \d+:$/),
      '      anthropic: { type: anthropic, baseURL: ${ANTHROPIC_BASE_URL} }',
      expect.stringMatching(/^ {4} +\^$/),
      '(inside { ... }, quote a reference: "${NAME}")',
    ]);
  } finally {
    expect(await gw.stop()).toBe(0);
  }
}, 30_000);

it('a SIGHUP while the gateway starts does not end the process: the start goes on (here to Redis refusing it: exit 1, saying why)', async () => {
  // A Redis that takes the connection and says nothing: serve is then waiting in its start when the signal comes.
  let taken: () => void = () => undefined;
  const connected = new Promise<void>((resolve) => { taken = resolve; });
  const sockets: net.Socket[] = [];
  const redis = net.createServer((socket) => { sockets.push(socket); taken(); });
  await new Promise<void>((resolve) => redis.listen(0, '127.0.0.1', resolve));
  const file = write('early-hup', `server: { port: 0 }\nredis: { url: "redis://127.0.0.1:${(redis.address() as net.AddressInfo).port}" }\n${MODELS}${ADMIN}`);
  const gw = startBinary(['serve', '--config', file], env);
  try {
    await connected;
    gw.child.kill('SIGHUP');
    await new Promise((r) => setTimeout(r, 200));
    for (const socket of sockets) socket.destroy();
    expect(await gw.exited).toBe(1);
    expect(gw.out()).toMatch(/redis\.url: Redis could not be reached/);
  } finally {
    gw.child.kill('SIGKILL');
    redis.close();
  }
}, 30_000);
