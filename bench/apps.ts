/** The apps every bench measures: (c) Express + node-fetch, and the gateway's models, price and limits from a given copy of the library. */
import express from 'express';
import type http from 'node:http';
import nodeFetch from 'node-fetch';
import type * as Library from '../lib';
import { streamModels } from './streams';

/** (c) Express that parses the JSON and forwards it with the gateway's HTTP client (node-fetch 2, keep-alive `agent`). */
export function expressApp(upstream: string, agent: http.Agent): express.Express {
  const app = express();
  app.post('/*path', express.json({ limit: '32mb' }), async (req, res) => {
    const up = await nodeFetch(`${upstream}${req.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(req.body), agent });
    res.status(up.status).setHeader('content-type', up.headers.get('content-type') ?? 'application/json');
    if (req.body.stream) up.body.pipe(res);
    else res.end(await up.text());
  });
  return app;
}

/** Price of the LLM models and limits of the bench caller: the same for the whole gateway and for every stage level. */
export const PRICE = Object.freeze({ input: 300, output: 1500 });
export const LIMITS = Object.freeze({ defaults: { rpm: 1e9, tpm: 1e12, concurrency: 1e6 } });

/** The catalog of (d) and (e), from `lib` (this build's, or another's for `BENCH_AB`); with `client: 'undici'`, every adapter on undiciFetch(). */
export function benchModels(lib: typeof Library, baseURL: string, client?: 'undici'): Library.ModelEntry[] {
  const upstream = client === 'undici' ? { baseURL, fetch: lib.undiciFetch() } : { baseURL };
  return [
    { id: 'claude', capability: 'llm', upstream: lib.anthropicAdapter(upstream), pricing: PRICE },
    { id: 'hold', capability: 'llm', upstream: lib.anthropicAdapter(upstream), pricing: PRICE },
    { id: 'gpt', capability: 'llm', upstream: lib.openaiChatAdapter(upstream), pricing: PRICE },
    // Claude Code's requests (bench/claude-code-body.ts): the whole agent contract, passed through.
    { id: 'agent', capability: 'llm', upstream: lib.anthropicAdapter(upstream), pricing: PRICE, agentReady: true },
    { id: 'agent-gpt', capability: 'llm', upstream: lib.openaiChatAdapter(upstream), pricing: PRICE, agentReady: true },
    { id: 'rerank', capability: 'rerank', upstream: lib.cohereAdapter(upstream), pricing: { input: 10 } },
    ...streamModels(lib, upstream, PRICE), // the long agent streams and the Codex body (bench/streams.ts)
  ];
}
