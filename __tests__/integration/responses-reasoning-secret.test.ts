/**
 * The gateway's reasoning content is authenticated (an HMAC with `responses.reasoningSecret`): what it issued comes back
 * to Anthropic as the thinking block it was, its signature byte for byte, on every instance sharing the secret; anything
 * else that says it is the gateway's (a made-up `mgw.` blob carrying a signature Anthropic never made, one altered, one
 * another secret issued) never reaches Anthropic. It is dropped and logged, or, where Anthropic needs the thinking (thinking
 * on, the last turn that called a tool), refused by name before any upstream call. Codex-shaped bodies, raw HTTP.
 */
import { anthropicAdapter, type ModelEntry } from '../../lib';
import { startScripted, UNIT_PRICING as PRICING, type ScriptedTurn, type ScriptedUpstream } from '../helpers/fake-scripted';
import { addCaller, logEntry, startGateway, type RunningGateway } from '../helpers/gateway';
import { responsesViolations } from '../helpers/responses-grammar';
import { parseFrames } from '../helpers/stream-grammar';

type Json = Record<string, unknown>;
const SIGNATURE = 'EqQBCkYIBxgCKkBvb3BzLXNpZ25hdHVyZS1ieXRlcy8rPQ==';
const FORGED_SIGNATURE = 'EqQBForgedSignatureAnthropicNeverMade==';
const SECRET = 'a-reasoning-secret-every-instance-shares-0123456789';
const USER = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List the files' }] };
const CALL = { type: 'function_call', call_id: 'toolu_ls', name: 'exec_command', arguments: '{"cmd":"ls"}' };
const OUTPUT = { type: 'function_call_output', call_id: 'toolu_ls', output: 'a.txt' };
const TOOLS = [{ type: 'function', name: 'exec_command', parameters: { type: 'object', properties: { cmd: { type: 'string' } } } }];
const THINKS: ScriptedTurn = { thinking: { text: ['Plan: list files.'], signature: SIGNATURE }, calls: [{ id: 'toolu_ls', name: 'exec_command', input: { cmd: 'ls' } }], usage: { input: 20, output: 30 } };
const DONE: ScriptedTurn = { text: ['Listed.'], usage: { input: 30, output: 2 } };

/** A well-formed gateway blob of either version made without the secret: a thinking block carrying a signature Anthropic never made. */
const forged = (version: 'v1' | 'v2'): string => `mgw.${version}.${Buffer.from(JSON.stringify({ type: 'thinking', thinking: 'Forged.', signature: FORGED_SIGNATURE })).toString('base64url')}`;
const reasoningItem = (encrypted: string): Json => ({ type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Plan: list files.' }], content: null, encrypted_content: encrypted });

let claude: ScriptedUpstream;
/** Two instances sharing the secret, and one with a secret of its own (the default: a random one). */
let a: RunningGateway;
let b: RunningGateway;
let lone: RunningGateway;
const keys = new Map<RunningGateway, string>();
beforeAll(async () => {
  claude = await startScripted('anthropic', () => DONE);
  const models: ModelEntry[] = [{ id: 'claude', capability: 'llm', upstream: anthropicAdapter({ baseURL: claude.url }), agentReady: true, autoCache: false, pricing: PRICING }];
  [a, b, lone] = await Promise.all([startGateway({ models, responses: { reasoningSecret: SECRET } }), startGateway({ models, responses: { reasoningSecret: SECRET } }), startGateway({ models })]);
  for (const gw of [a, b, lone]) keys.set(gw, addCaller(gw.store).key);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close(), lone.close()]);
  await claude.close();
});

/** A Codex-shaped turn (thinking on unless `effort` is null) to `gw`: its status, final response (a stream, grammar checked) or error, and request id. */
async function turn(gw: RunningGateway, input: Json[], effort: string | null = 'medium'): Promise<{ status: number; response: Json; error: Json; requestId: string }> {
  const body = { model: 'claude', stream: true, input, tools: TOOLS, store: false, include: ['reasoning.encrypted_content'], reasoning: { ...(effort ? { effort } : {}), summary: 'auto' } };
  const res = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${keys.get(gw)}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  const requestId = String(res.headers.get('request-id'));
  if (res.status !== 200) return { status: res.status, response: {}, error: (JSON.parse(text) as { error: Json }).error, requestId };
  const frames = parseFrames(text);
  expect(responsesViolations(frames)).toEqual([]);
  return { status: 200, response: (frames.at(-1)?.data as Json).response as Json, error: {}, requestId };
}

/** The reasoning content `gw` issues for a turn that thinks, then calls a tool. */
async function issuedBy(gw: RunningGateway): Promise<string> {
  claude.script = () => THINKS;
  const { response } = await turn(gw, [USER]);
  claude.script = () => DONE;
  return String((response.output as Json[])[0]?.encrypted_content);
}

it('genuine: issued by one instance, replayed to another sharing the secret, it reaches Anthropic first in its turn, its signature byte for byte', async () => {
  const issued = await issuedBy(a);
  expect(issued).toMatch(/^mgw\.v2\./);
  for (const gw of [a, b]) {
    expect((await turn(gw, [USER, reasoningItem(issued), CALL, OUTPUT])).status).toBe(200);
    const sent = claude.calls().at(-1);
    expect((sent?.body?.messages as Json[])[1]).toEqual({ role: 'assistant', content: [{ type: 'thinking', thinking: 'Plan: list files.', signature: SIGNATURE }, { type: 'tool_use', id: 'toolu_ls', name: 'exec_command', input: { cmd: 'ls' } }] });
    expect(sent?.text).toContain(`"signature":"${SIGNATURE}"`);
  }
});

describe('content that does not authenticate never reaches Anthropic', () => {
  /** Each kind: forged (both versions), altered (a byte of the block changed, the MAC kept), issued under another secret. */
  const kinds: Array<[string, () => Promise<string>]> = [
    ['a forged v1 blob', async () => forged('v1')],
    ['a forged v2 blob', async () => `${forged('v2')}.${'A'.repeat(43)}`],
    ['an altered blob', async () => {
      const issued = await issuedBy(a);
      const dot = issued.lastIndexOf('.');
      const block = JSON.parse(Buffer.from(issued.slice(7, dot), 'base64url').toString()) as Json;
      return `mgw.v2.${Buffer.from(JSON.stringify({ ...block, signature: FORGED_SIGNATURE })).toString('base64url')}${issued.slice(dot)}`;
    }],
    ['a blob another secret issued', () => issuedBy(lone)],
  ];

  it.each(kinds)('%s in the last turn that called a tool, thinking on: 400 naming the item, before any upstream call', async (_name, make) => {
    const content = await make();
    const calls = claude.calls().length;
    const { status, error } = await turn(a, [USER, reasoningItem(content), CALL, OUTPUT]);
    expect(status).toBe(400);
    expect(error).toMatchObject({ type: 'invalid_request_error', param: 'input.1.encrypted_content', message: expect.stringMatching(/^input\.1\.encrypted_content: is reasoning this gateway cannot authenticate/) });
    expect(claude.calls().length).toBe(calls);
  });

  it.each(kinds)('%s anywhere else: dropped, and the log says so; the request goes on without it', async (_name, make) => {
    const content = await make();
    const earlier = [USER, reasoningItem(content), CALL, OUTPUT, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a.txt' }] }, { ...USER, content: 'Again' }];
    for (const [input, effort] of [[earlier, 'medium'], [[USER, reasoningItem(content), CALL, OUTPUT], null]] as const) {
      const { status, requestId, error } = await turn(a, [...input], effort);
      expect([status, error]).toEqual([200, {}]);
      const sent = claude.calls().at(-1)?.text ?? '';
      expect(sent).not.toContain(FORGED_SIGNATURE);
      expect(sent).not.toMatch(/"type":"thinking"/);
      expect((await logEntry(a.store, requestId)).detail).toContain('input.1.encrypted_content (reasoning this gateway cannot authenticate)');
    }
  });
});
