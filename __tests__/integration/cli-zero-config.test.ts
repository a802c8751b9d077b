/** Zero-config: a newcomer who pastes the banner's lines, as printed and in order, gets an answer from the model. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { processEnv, runBinaryAsync, startBinary, type Running } from '../helpers/binary';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { UPSTREAM_KEY, type GatedFake } from '../helpers/fake-server';

const bash = promisify(execFile);
let upstream: GatedFake;
let gw: Running;
const env = (): NodeJS.ProcessEnv => processEnv({
  ANTHROPIC_API_KEY: UPSTREAM_KEY, ANTHROPIC_BASE_URL: upstream.url, PORT: '0',
  OPENAI_API_KEY: undefined, DATABASE_URL: undefined, MODEL_GATEWAY_CONFIG: undefined,
});
beforeAll(async () => {
  upstream = await startAnthropicFake();
  gw = startBinary(['serve'], env());
});
afterAll(async () => {
  await gw.stop();
  await upstream.close();
});

/** Runs lines in one bash, as a terminal runs pasted lines; resolves with what they printed. */
async function paste(lines: string[]): Promise<string[]> {
  const { stdout } = await bash('bash', ['-e', '-c', lines.join('\n')], { env: processEnv({ MGW_ADMIN_TOKEN: undefined, MGW_KEY: undefined }) });
  return stdout.trimEnd().split('\n');
}

it('the banner\'s lines, pasted as printed, credit the first key through an audited credit and get a 200 from /v1/messages', async () => {
  const url = (await gw.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] as string;
  const block = (await gw.waitFor(/Paste these lines into a shell:\n\n([\s\S]*?)\n\n/))[1] as string;
  const lines = block.split('\n');
  expect(gw.out()).toContain('store: memory (lost on exit)');
  expect(gw.out()).toContain('models: claude-sonnet-4-5 (llm, anthropic), claude-haiku-4-5 (llm, anthropic)');
  expect(gw.out()).toMatch(/A key carries no money:\nthe first curl credits first-caller 1000 cents \(\$10\.00\) through the admin API, an audited credit/);
  expect(block).not.toMatch(/<[^>]*>|…/); // no placeholder to fill in
  expect(lines.map((l) => l.split(' ')[0])).toEqual(['export', 'export', 'curl', 'curl', '#']);
  // The models are agent-ready: the last line says how Claude Code runs on them (a comment, so pasting it runs nothing).
  expect(lines[4]).toBe(`# Claude Code on this gateway: ANTHROPIC_BASE_URL=${url} ANTHROPIC_API_KEY=$MGW_KEY claude --model claude-haiku-4-5`);

  const [credited, answer] = await paste(lines);
  expect(JSON.parse(credited as string)).toMatchObject({ applied: true, account: { balance: 1000 } });
  expect(JSON.parse(answer as string)).toMatchObject({ type: 'message', model: 'claude-haiku-4-5', content: [{ type: 'text', text: 'Hello from the fake upstream' }] });

  // Pasted again: the same idempotency key moves no money; the call is billed once more.
  const [again, second] = await paste(lines);
  expect(JSON.parse(again as string)).toMatchObject({ applied: false });
  expect(JSON.parse(second as string)).toMatchObject({ type: 'message' });

  // The money moved through the audit trail: the key's creation (no money) and the one credit, by the admin token.
  const admin = /^export MGW_ADMIN_TOKEN=(\S+)$/.exec(lines[0] as string)?.[1] as string;
  const audit = (await (await fetch(`${url}/admin/audit`, { headers: { authorization: `Bearer ${admin}` } })).json()) as { items: Array<{ actor: string; action: string; target: string }> };
  expect(audit.items.map((e) => [e.actor, e.action, e.target.split(':')[0]]).sort()).toEqual([['admin', 'credit', 'caller'], ['zero-config', 'key.create', 'key']]);
  expect(gw.out().split(admin).length).toBe(2); // the token is printed once
});

it('with no config and no provider key it exits 2, naming what to set', async () => {
  const none = await runBinaryAsync(['serve'], processEnv({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, MODEL_GATEWAY_CONFIG: undefined }));
  expect(none).toMatchObject({ code: 2, err: expect.stringContaining('no config: pass --config gateway.yaml, or set ANTHROPIC_API_KEY (or OPENAI_API_KEY)') });
});
