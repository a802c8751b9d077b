/**
 * The TypeScript of docs/*.md that a user copies, as written (docs/testing.md lists what is run and how): the store
 * contract (the exported interface), the complete adapter of adapters.md (serving JSON and streams through a gateway,
 * billed on the usage its provider stated), and the Agents SDK lines of agents.md, on the pinned SDK and on the newest.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startScripted, UNIT_PRICING, type ScriptedUpstream } from '../helpers/fake-scripted';
import { addCaller, logEntry, startGateway, type RunningGateway } from '../helpers/gateway';
import { ROOT } from '../helpers/markdown';
import { requireModernNode } from '../helpers/modern-node';
import { compile, runToEnd, scratch, snippetsUnder, start } from '../helpers/snippets';

jest.setTimeout(90_000);
const work = scratch('docs');
const [storeInterface] = snippetsUnder('docs/stores.md', 'The gateway\'s contract') as [string];
const adapter = snippetsUnder('docs/adapters.md', 'Writing an adapter')[0] as string;
const [agentsSdk] = snippetsUnder('docs/agents.md', 'OpenAI Agents SDK') as [string];
let files: Record<string, string>;

/** A user's environment: none of jest's npm variables, no provider or gateway setting of the developer's. */
const env = (extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => {
  const base: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!/^npm_|^(ANTHROPIC|OPENAI|MY_PROVIDER)_|^GATEWAY_|^NODE_ENV$/i.test(name)) base[name] = value;
  return { ...base, ...extra };
};

/** The harness after the Agents SDK lines: one run of an agent on the gateway's model, its output printed. */
const AGENT_RUN = [
  "import { Agent, run } from '@openai/agents';",
  "const result = await run(new Agent({ name: 'Greeter', instructions: 'Greet.', model: 'agent-model' }), 'Hello');",
  'console.log(JSON.stringify({ output: result.finalOutput }));',
].join('\n');

beforeAll(() => {
  files = compile(work.dir, [
    { name: 'store-interface', code: storeInterface,
      before: "import type { Awaitable, Caller, ReserveRequest, ReserveResult, Settlement, RequestLogEntry, GatewayStore as Exported } from 'model-gateway';",
      after: 'type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;\nexport const same: Same<GatewayStore, Exported> = true;' },
    { name: 'adapter', code: adapter,
      after: [
        "import express from 'express';",
        "import { createGatewayRouter, MemoryStore } from 'model-gateway';",
        'const store = new MemoryStore();',
        "store.addKey('sk-adapter', { id: 'adapter' });",
        "store.credit({ callerId: 'adapter', amount: 1000, idempotencyKey: 'adapter-opening' });",
        "const router = createGatewayRouter({ store, models: [{ id: 'mine', capability: 'llm', upstream: myAdapter, upstreamModel: 'provider-model', pricing: { input: 1_000_000, output: 1_000_000 } }] });",
        "const server = express().use(router).listen(0, '127.0.0.1', () => console.log(`listening ${JSON.stringify(server.address())}`));",
        "process.once('SIGTERM', () => { server.close(); void router.close().then(() => console.log(`balance ${store.getBalance('adapter')}`)); });",
      ].join('\n') },
    { name: 'agents-sdk', code: agentsSdk, after: AGENT_RUN },
  ]);
  // The newest SDK, as a user's app has it: `@openai/agents` and the `openai` it depends on, the same lines compiled against them.
  const latest = path.join(work.dir, 'latest');
  mkdirSync(path.join(latest, 'node_modules', '@openai'), { recursive: true });
  const sdk = path.join(ROOT, 'node_modules', 'agents-latest');
  symlinkSync(sdk, path.join(latest, 'node_modules', '@openai', 'agents'));
  symlinkSync(path.join(sdk, 'node_modules', 'openai'), path.join(latest, 'node_modules', 'openai')); // the SDK's own openai 7
  Object.assign(files, { 'agents-sdk-latest': compile(latest, [{ name: 'agents-sdk', code: agentsSdk, after: AGENT_RUN }])['agents-sdk'] });
}, 120_000);
afterAll(() => work.remove());

it('docs/stores.md\'s store interface is the exported GatewayStore (checked by the compiler)', () => {
  expect(files['store-interface']).toBeDefined();
});

describe('docs/adapters.md\'s complete adapter, mounted in a gateway', () => {
  const asked: Array<{ model: unknown }> = [];
  let provider: http.Server;
  let url: string;
  beforeAll(async () => {
    provider = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => { body += c.toString(); });
      req.on('end', () => {
        const request = JSON.parse(body) as { model: string };
        asked.push({ model: request.model });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: 'Hello from my provider', in: 11, out: 7 }));
      });
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1/generate`;
  });
  afterAll(() => new Promise<void>((resolve) => provider.close(() => resolve())));

  it('answers JSON and a stream with the provider\'s text, billed the usage it stated', async () => {
    const running = start(files.adapter as string, env({ MY_PROVIDER_URL: url }));
    try {
      const { port } = JSON.parse((await running.waitFor(/^listening (.*)$/m))[1] as string) as { port: number };
      const post = (body: object): Promise<Response> => fetch(`http://127.0.0.1:${port}/v1/messages`, {
        method: 'POST', headers: { 'x-api-key': 'sk-adapter', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mine', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }], ...body }),
      });
      expect(await (await post({})).json()).toMatchObject({ model: 'mine', content: [{ type: 'text', text: 'Hello from my provider' }], usage: { input_tokens: 11, output_tokens: 7 } });
      const stream = await (await post({ stream: true })).text();
      expect(stream.match(/^event: (\S+)$/gm)?.map((l) => l.slice(7))).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
      expect(stream).toContain('"text":"Hello from my provider"');
      expect(asked).toEqual([{ model: 'provider-model' }, { model: 'provider-model' }]);
      running.child.kill('SIGTERM');
      // Two calls of 11 + 7 tokens at 1 a token: 36 of the 1000 credited.
      expect((await running.waitFor(/^balance (\d+)$/m))[1]).toBe('964');
    } finally {
      running.child.kill('SIGKILL');
    }
  });
});

describe('docs/agents.md\'s Agents SDK lines, then an agent run on the gateway', () => {
  let upstream: ScriptedUpstream;
  let gw: RunningGateway;
  let caller: { key: string; id: string };
  beforeAll(async () => {
    upstream = await startScripted('anthropic', () => ({ text: ['Hi', ' there'], usage: { input: 9, output: 3 } }));
    gw = await startGateway({ models: [{ id: 'agent-model', capability: 'llm', upstream: (await import('../../lib')).anthropicAdapter({ baseURL: upstream.url }), agentReady: true, autoCache: false, pricing: UNIT_PRICING }] });
    caller = addCaller(gw.store);
  });
  afterAll(async () => {
    await gw.close();
    await upstream.close();
  });

  /** Runs the compiled lines with the gateway's address and key; the run's output, and its one model call billed. */
  async function runOn(file: string): Promise<void> {
    const before = gw.store.getBalance(caller.id);
    const out = await runToEnd(file, env({ OPENAI_BASE_URL: `${gw.url}/v1`, GATEWAY_API_KEY: caller.key }));
    expect(JSON.parse(out)).toEqual({ output: 'Hi there' });
    const entry = await logEntry(gw.store, gw.store.getLog().filter((e) => e.callerId === caller.id).at(-1)?.requestId as string);
    expect(entry).toMatchObject({ endpoint: 'responses', status: 200, billingStatus: 'billed', charge: 9 + 6 });
    expect(before - gw.store.getBalance(caller.id)).toBe(15);
  }

  it('on the pinned SDK (0.14, openai 6)', () => runOn(files['agents-sdk'] as string));

  it('on the newest SDK (openai 7, which needs Node 22)', async () => {
    requireModernNode('@openai/agents 0.15 and later');
    await runOn(files['agents-sdk-latest'] as string);
  });
});
