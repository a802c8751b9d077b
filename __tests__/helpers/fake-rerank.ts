/** Fake rerank upstreams in the Cohere (v1, v2), Jina, Voyage and TEI wire formats. */
import { failWith, startFake, type FakeServer } from './fake-server';

/** Score of document i: deliberately not in index order, and answered unsorted. */
export const score = (i: number): number => [0.2, 0.9, 0.5, 0.7, 0.1][i % 5] as number;
const scored = (docs: unknown[]): Array<{ index: number; s: number }> => docs.map((_, index) => ({ index, s: score(index) }));

export type RerankFormat = 'cohere' | 'jina' | 'voyage' | 'tei';

/**
 * Model name behaviours: `*-status-<code>`, `*-tokens` (Cohere reports input tokens), `*-meta-tokens`, `*-bad-index`.
 * Cohere only: `*-sorted*` answers by relevance, highest first (as Cohere does); `*-own-text*` also, and writes the
 * score 0.9 as `0.90`, a spelling JSON.stringify never writes; `*-escaped*` adds a meta string with an escaped quote.
 */
export function startRerankFake(format: RerankFormat): Promise<FakeServer> {
  return startFake((req, res) => {
    const model = String(req.body.model ?? '');
    const status = /status-(\d{3})/.exec(model);
    if (status) return failWith(res, Number(status[1]));
    const docs = (format === 'tei' ? req.body.texts : req.body.documents) as unknown[];
    const list = scored(Array.isArray(docs) ? docs : []);
    if (model.endsWith('-bad-index')) list.push({ index: 99, s: 0.99 });
    if (/-(sorted|own-text)/.test(model)) list.sort((a, b) => b.s - a.s || a.index - b.index);
    let body: unknown;
    if (format === 'cohere') {
      const billed: Record<string, number> = { search_units: 1 };
      if (model.endsWith('-tokens') && !model.endsWith('-meta-tokens')) billed.input_tokens = 42;
      body = {
        id: 'cohere-id', results: list.map((r) => ({ index: r.index, relevance_score: r.s })),
        meta: {
          api_version: { version: req.path.startsWith('/v2') ? '2' : '1' }, billed_units: billed,
          ...(model.endsWith('-meta-tokens') ? { tokens: { input_tokens: 40 } } : {}), ...(model.includes('-escaped') ? { warnings: ['a "quoted" word'] } : {}),
        },
      };
    } else if (format === 'jina') {
      body = { model, usage: { total_tokens: 33 }, results: list.map((r) => ({ index: r.index, document: { text: 'echo' }, relevance_score: r.s })) };
    } else if (format === 'voyage') {
      body = { object: 'list', data: list.map((r) => ({ relevance_score: r.s, index: r.index })), model, usage: { total_tokens: 31 } };
    } else {
      body = list.map((r) => ({ index: r.index, score: r.s }));
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    const text = JSON.stringify(body);
    res.end(model.includes('-own-text') ? text.replace('"relevance_score":0.9}', '"relevance_score":0.90}') : text);
  });
}
