/** The upstream HTTP client's own cost: CPU per call of node-fetch 2, global fetch and raw http.request, through the adapter seam. */
import nodeFetch from 'node-fetch';
import { anthropicAdapter, nodeHttpFetch, type FetchLike, type ResponseLike } from '../lib';
import { UsageTracker } from '../lib/billing/usage';

const body = { model: 'claude', max_tokens: 256, messages: [{ role: 'user' as const, content: 'Summarise the plot of a short story in one paragraph.' }] };

const globalFetch: FetchLike = (url, init) => fetch(url, { method: init.method, headers: init.headers, body: init.body, signal: init.signal }) as unknown as Promise<ResponseLike>;

/** CPU µs per adapter.create() call for each client, at concurrency 50 (median of 3 rounds). */
export async function measureClients(port: number): Promise<Array<[string, number]>> {
  const baseURL = `http://127.0.0.1:${port}`;
  const clients: Array<[string, FetchLike | undefined]> = [['node-fetch 2 (default)', undefined], ['global fetch (undici)', globalFetch], ['nodeHttpFetch() (raw http.request)', nodeHttpFetch()]];
  const rounds = new Map<string, number[]>();
  for (let round = 0; round < 3; round++) {
    for (const [name, f] of clients) {
      const adapter = anthropicAdapter({ baseURL, ...(f ? { fetch: f } : {}) });
      const call = () => adapter.create(body, { signal: new AbortController().signal, requestId: 'r', usage: new UsageTracker() });
      const N = 4000;
      let i = 0;
      const worker = async (): Promise<void> => { while (i++ < N) await call(); };
      await Promise.all(Array.from({ length: 50 }, worker)); // warm-up
      i = 0;
      const c0 = process.cpuUsage();
      await Promise.all(Array.from({ length: 50 }, worker));
      const c = process.cpuUsage(c0);
      (rounds.get(name) ?? rounds.set(name, []).get(name) as number[]).push((c.user + c.system) / N);
    }
  }
  void nodeFetch; // the default client, named here for the reader
  return clients.map(([name]) => [name, ((rounds.get(name) ?? []).sort((a, b) => a - b)[1] ?? 0)]);
}
