/** Minimal host app: the gateway on the embedded default (MemoryStore, demo key, stand-in upstream unless configured). */
import express from 'express';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicAdapter, cohereAdapter, createGatewayRouter, localStandIn, MemoryStore, openaiChatAdapter } from '../lib';
import type { ModelEntry } from '../lib';

const store = new MemoryStore();
const demoKey = process.env.GATEWAY_DEMO_KEY ?? `sk-demo-${randomBytes(12).toString('hex')}`;
store.addKey(demoKey, { id: 'demo' });
store.credit({ callerId: 'demo', amount: 1_000_000, idempotencyKey: 'opening-demo' });

// A real upstream when the environment names one; otherwise the clearly labelled local stand-in.
const messagesUpstream = process.env.ANTHROPIC_BASE_URL
  ? anthropicAdapter({ baseURL: process.env.ANTHROPIC_BASE_URL, apiKey: process.env.ANTHROPIC_API_KEY ?? '' })
  : process.env.OPENAI_BASE_URL
    ? openaiChatAdapter({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY ?? '' })
    : localStandIn();
const models: ModelEntry[] = [{
  id: process.env.GATEWAY_MODEL ?? 'demo-model', capability: 'llm', upstream: messagesUpstream,
  upstreamModel: process.env.UPSTREAM_MODEL, pricing: { input: 300, output: 1500 },
}];
if (process.env.COHERE_BASE_URL) {
  models.push({ id: 'rerank', capability: 'rerank', upstream: cohereAdapter({ baseURL: process.env.COHERE_BASE_URL, apiKey: process.env.COHERE_API_KEY ?? '' }), pricing: { input: 5 } });
}

const app = express();
const gateway = createGatewayRouter({ store, models });
app.use(gateway);
const wanted = Number(process.env.PORT ?? 8787);
const server = http.createServer(app);
server.once('error', (err: NodeJS.ErrnoException) => {
  // A port another process holds is the usual first-day failure: name it and the fix, not a stack.
  console.error(err.code === 'EADDRINUSE'
    ? `npm start: port ${wanted} is in use by another process: stop it, or set PORT (PORT=0 picks a free one)`
    : `npm start: cannot listen on 127.0.0.1:${wanted}: ${err.message}`);
  process.exit(1);
});
server.listen(wanted, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo; // PORT=0: the one the system gave
  const upstream = messagesUpstream.name === 'local-stand-in' ? 'LOCAL STAND-IN (echo, not a model; set ANTHROPIC_BASE_URL or OPENAI_BASE_URL for a real one)' : messagesUpstream.name;
  console.log(`model-gateway listening on http://127.0.0.1:${port}`);
  console.log(`demo key: ${demoKey}   (balance 1000000 minor units)`);
  console.log(`upstream: ${upstream}`);
  console.log(`try: curl -s http://127.0.0.1:${port}/v1/messages -H "x-api-key: ${demoKey}" -H "anthropic-version: 2023-06-01" -H "content-type: application/json" -d '{"model":"${models[0]?.id}","max_tokens":64,"messages":[{"role":"user","content":"Hello"}]}'`);
});
const stop = (): void => { server.close(() => gateway.close().then(() => process.exit(0))); };
process.once('SIGINT', stop).once('SIGTERM', stop);
