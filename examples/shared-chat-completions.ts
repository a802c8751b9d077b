/** Host app whose clients use both the Anthropic and the OpenAI SDK: one router serves /v1/messages and /v1/chat/completions over one balance, limits and log. */
import express from 'express';
import { createGatewayRouter, MemoryStore, openaiChatAdapter } from '../lib';
import type { GatewayStore, LimitsOptions, ModelEntry } from '../lib';

/** What the host passes in. */
export interface SharedAppOptions {
  store: GatewayStore;
  /** An OpenAI-compatible upstream for the gateway's model. */
  openaiBaseURL: string;
  openaiKey: string;
  limits?: LimitsOptions;
}

/** Builds the host app: its own routes, and the gateway for both client protocols. */
export function buildSharedApp(options: SharedAppOptions): { app: express.Express; close: () => Promise<void> } {
  const openai = openaiChatAdapter({ baseURL: options.openaiBaseURL, apiKey: options.openaiKey });
  const models: ModelEntry[] = [
    { id: 'house-model', capability: 'llm', upstream: openai, upstreamModel: 'gpt-json', pricing: { input: 1_000_000, output: 2_000_000 } },
  ];
  const gateway = createGatewayRouter({ store: options.store, models, limits: { keyPrefix: 'shared-example', ...options.limits } });
  const app = express();
  app.get('/healthz', (_req, res) => void res.send('ok')); // the host's own routes live beside the gateway
  app.use(gateway); // POST /v1/messages and POST /v1/chat/completions share one pipeline
  return { app, close: () => gateway.close() };
}

if (require.main === module) {
  const store = new MemoryStore();
  store.addKey('sk-shared-demo', { id: 'demo', limits: { rpm: 60 } });
  store.credit({ callerId: 'demo', amount: 1_000_000, idempotencyKey: 'opening-demo' });
  const openaiBaseURL = process.env.OPENAI_BASE_URL;
  if (!openaiBaseURL) throw new Error('Set OPENAI_BASE_URL (and OPENAI_API_KEY) to an OpenAI-compatible upstream.');
  const { app } = buildSharedApp({ store, openaiBaseURL, openaiKey: process.env.OPENAI_API_KEY ?? '' });
  const server = app.listen(Number(process.env.PORT ?? 8787), '127.0.0.1', () => {
    const { port } = server.address() as { port: number }; // PORT=0: the one the system gave
    console.log(`shared host on http://127.0.0.1:${port} (key sk-shared-demo): /v1/messages and /v1/chat/completions`);
  });
}
