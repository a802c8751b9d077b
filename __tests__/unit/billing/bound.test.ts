/** The bound a budget holds: never below what a request can cost (bytes, framing, media, max_tokens, the dearest input price), and the requests it cannot bound. */
import { boundAmount, exceedsBound, FRAMING_TOKENS, requestBound } from '../../../lib/billing/bound';
import { costOf } from '../../../lib/billing/pricing';
import { GATEWAY_DEFAULTS } from '../../../lib/foundation/defaults';

const MEDIA = { ...GATEWAY_DEFAULTS.budgets, imageTokens: 5000, documentTokens: 200_000, maxSearches: 2, searchTokens: 10_000 };

describe('requestBound', () => {
  it('counts every byte of the body as JSON: multi-byte text counts its UTF-8 bytes, not its characters', () => {
    const ascii = requestBound({ model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'aaaa' }] }, MEDIA);
    const wide = requestBound({ model: 'm', max_tokens: 100, messages: [{ role: 'user', content: '日本' }] }, MEDIA); // 2 characters, 6 bytes
    if ('unbounded' in ascii || 'unbounded' in wide) throw new Error('bounded');
    expect(wide.inputTokens - ascii.inputTokens).toBe(2);
    const json = JSON.stringify({ model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'aaaa' }] });
    expect(ascii.inputTokens).toBeGreaterThanOrEqual(Buffer.byteLength(json) + FRAMING_TOKENS);
    expect(ascii.outputTokens).toBe(100);
  });

  it('counts an image and a PDF by their bounds (not their data), a text document by its bytes', () => {
    const data = 'A'.repeat(100_000);
    const body = (block: object) => ({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: [block] }] });
    const image = requestBound(body({ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }), MEDIA);
    const pdf = requestBound(body({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } }), MEDIA);
    const text = requestBound(body({ type: 'document', source: { type: 'text', media_type: 'text/plain', data } }), MEDIA);
    if ('unbounded' in image || 'unbounded' in pdf || 'unbounded' in text) throw new Error('bounded');
    expect(image.inputTokens).toBeLessThan(FRAMING_TOKENS + 5000 + 500);
    expect(image.inputTokens).toBeGreaterThan(FRAMING_TOKENS + 5000);
    expect(pdf.inputTokens - image.inputTokens).toBe(200_000 - 5000);
    expect(text.inputTokens).toBeGreaterThan(100_000);
  });

  it('bounds web search and fetch in place (max_uses at most maxSearches, a fetch\'s page at most searchTokens): each use one more pass over the request and what the uses bring back', async () => {
    const base = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
    const plain = requestBound(structuredClone(base), MEDIA);
    const body = { ...structuredClone(base), tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 9 }, { type: 'web_fetch_20250910', name: 'web_fetch' }, { name: 'x', input_schema: {} }] };
    const bound = requestBound(body, MEDIA);
    if ('unbounded' in plain || 'unbounded' in bound) throw new Error('bounded');
    expect(body.tools).toEqual([
      { type: 'web_search_20250305', name: 'web_search', max_uses: 2 }, { type: 'web_fetch_20250910', name: 'web_fetch', max_uses: 2, max_content_tokens: 10_000 }, { name: 'x', input_schema: {} },
    ]);
    expect(bound.searches).toBe(2);
    const once = bound.inputTokens / 5 - 4 * 10_000; // four uses: five passes over the request and all they bring back
    expect(Number.isInteger(once) && once > plain.inputTokens).toBe(true);
    expect(boundAmount(0, 0, { input: 1, webSearch: 1000 }, 2)).toBe(2); // 10 per thousand searches: 1 each, rounded up
  });

  it('bounds the search units of a rerank body: every chunk a document may be split into (500 tokens with the query) counted as a document, 100 a unit', () => {
    const docs = (n: number, bytes: number): string[] => Array.from({ length: n }, () => 'x'.repeat(bytes));
    const units = (query: string, documents: string[]): number => {
      const b = requestBound({ model: 'r', query, documents }, MEDIA);
      if ('unbounded' in b) throw new Error('bounded');
      return b.searchUnits;
    };
    expect(units('q', docs(100, 10))).toBe(1); // one chunk each: 100 documents, one unit
    expect(units('q', docs(101, 10))).toBe(2);
    expect(units('q', docs(100, 900))).toBe(2); // 900 bytes over 496 a chunk: two chunks each
    expect(units('q'.repeat(600), docs(1, 3))).toBe(1); // a query past a chunk's room: a chunk per byte, still bounded
    expect(boundAmount(0, 0, { input: 0, searchUnit: 200 }, 0, 3)).toBe(1); // 200 per thousand units: 0.6, rounded up
  });

  it('names the field of a request whose server tools no bound holds (code execution, MCP servers), and every server tool when maxSearches is 0', () => {
    expect(requestBound({ max_tokens: 1, messages: [], tools: [{ name: 'x', input_schema: {} }, { type: 'code_execution_20250825', name: 'code_execution' }] }, MEDIA)).toEqual({ unbounded: 'tools.1.type' });
    expect(requestBound({ max_tokens: 1, messages: [], mcp_servers: [{ url: 'https://x' }] }, MEDIA)).toEqual({ unbounded: 'mcp_servers' });
    expect(requestBound({ max_tokens: 1, messages: [], tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, { ...MEDIA, maxSearches: 0 })).toEqual({ unbounded: 'tools.0.type' });
    expect('unbounded' in requestBound({ max_tokens: 1, messages: [], tools: [{ type: 'bash_20250124', name: 'bash' }] }, MEDIA)).toBe(false); // a client tool
  });

  it('reads a rerank body\'s query once per document, and bounds no output', () => {
    const bound = requestBound({ model: 'r', query: 'q'.repeat(100), documents: ['a', 'b', 'c'] }, MEDIA);
    if ('unbounded' in bound) throw new Error('bounded');
    expect(bound.inputTokens).toBeGreaterThan(300 + FRAMING_TOKENS);
    expect(bound.outputTokens).toBe(0);
  });
});

describe('boundAmount', () => {
  it('prices input at the dearest input-side rate (an Anthropic 1-hour cache write: 2× input) and output at its price, rounded up', () => {
    const pricing = { input: 300, output: 1500 };
    expect(boundAmount(1_000_000, 0, pricing)).toBe(600);
    expect(boundAmount(0, 1_000_000, pricing)).toBe(1500);
    expect(boundAmount(1, 1, pricing)).toBe(1); // 0.0021 rounds up
    expect(boundAmount(1_000_000, 1_000_000, { input: 300, output: 1500, cacheWrite1h: 900 })).toBe(2400);
    expect(boundAmount(1_000_000, 1_000_000, undefined)).toBe(0);
  });

  it('is never below the cost of any usage within the bound, however it is split across input figures', () => {
    const pricing = { input: 300, output: 1500 };
    const held = boundAmount(10_000, 500, pricing);
    for (const figure of ['inputTokens', 'cacheReadInputTokens', 'cacheWrite5mInputTokens', 'cacheWrite1hInputTokens'] as const) {
      for (const format of ['anthropic', 'openai', undefined] as const) {
        expect(exceedsBound(costOf({ [figure]: 10_000, outputTokens: 500 }, pricing, format), held)).toBe(false);
      }
    }
  });
});

describe('exceedsBound', () => {
  it('compares an exact cost with whole minor units', () => {
    expect(exceedsBound('10', 10)).toBe(false);
    expect(exceedsBound('10.000000000001', 10)).toBe(true);
  });
});
