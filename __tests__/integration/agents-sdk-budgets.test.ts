/**
 * The OpenAI Agents SDK, set up as docs/agents.md tells users, against a key whose budget cannot hold a turn: the SDK's client
 * gets 429 `insufficient_quota` with `x-should-retry: false`, so it throws at once, without the retries it makes by default.
 */
import path from 'node:path';
import { Agent, Runner, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, type OpenAIClient } from '@openai/agents';
import { anthropicAdapter } from '../../lib';
import { hashKey } from '../../lib/stores/hash';
import { startScripted, UNIT_PRICING, type ScriptedUpstream } from '../helpers/fake-scripted';
import { startGateway, type RunningGateway } from '../helpers/gateway';

/** The `openai` the SDK itself depends on (resolved from the SDK, as a user's app would import it). */
const { OpenAI } = require(require.resolve('openai', { paths: [path.dirname(require.resolve('@openai/agents-openai'))] })) as { OpenAI: new (options: { baseURL: string; apiKey: string }) => OpenAIClient };

let upstream: ScriptedUpstream;
let gw: RunningGateway;
beforeAll(async () => {
  upstream = await startScripted('anthropic', () => ({ text: ['Hi'], usage: { input: 9, output: 3 } }));
  gw = await startGateway({ models: [{ id: 'm', capability: 'llm', agentReady: true, upstream: anthropicAdapter({ baseURL: upstream.url }), pricing: UNIT_PRICING }] });
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});

it('a spent budget stops a run at once: the SDK throws the 429 insufficient_quota naming the budget, one request, no retry', async () => {
  const secret = 'sk-agents-budget-0123456789abcdef';
  gw.store.createKey({ keyHash: hashKey(secret), prefix: 'sk-agents', callerId: 'agents', budget: { amount: 5, period: 'month', timeZone: 'UTC', requests: null, tokens: null, perSession: null, perSubagent: null } });
  gw.store.credit({ callerId: 'agents', amount: 1_000_000, idempotencyKey: 'open-agents' });
  setDefaultOpenAIClient(new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: secret })); // the client's default retries left on
  setOpenAIAPI('responses');
  setTracingDisabled(true);
  const run = new Runner().run(new Agent({ name: 'Greeter', instructions: 'Greet.', model: 'm' }), 'Hello');
  await expect(run).rejects.toMatchObject({ status: 429, code: 'insufficient_quota', message: expect.stringMatching(/Budget exhausted: the monthly key budget "key:key_[0-9a-f]+": this request may cost up to \d+; 5 left; it resets at \d{4}-\d{2}-01T00:00:00\+00:00 \(UTC\)/) });
  const mine = () => gw.store.getLog().filter((e) => e.callerId === 'agents').map((e) => [e.endpoint, e.status]);
  for (let i = 0; i < 50 && mine().length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 200)); // time for a retry, were there one
  expect(mine()).toEqual([['responses', 429]]);
  expect(upstream.calls()).toHaveLength(0);
});
