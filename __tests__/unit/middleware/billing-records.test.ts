/** lib/middleware/billing-records.ts: the rule's facts, the settlement and the log line, read off a request's context. */
import { createCatalog, type ModelEntry, type MessagesAdapter } from '../../../lib';
import { createContext } from '../../../lib/context';
import { decisionOf, logEntryOf, pricedByOf, settlementOf } from '../../../lib/middleware/billing-records';

const adapter = { kind: 'messages', format: 'openai', call: () => Promise.reject(new Error('unused')), stream: () => Promise.reject(new Error('unused')) } as unknown as MessagesAdapter;
const model = createCatalog([{ id: 'gpt-x', capability: 'llm', upstream: adapter, pricing: { input: 1_000_000, output: 2_000_000 } } as ModelEntry]).models[0];

function finished() {
  const ctx = createContext('req_42', 'chat_completions', 'openai');
  Object.assign(ctx, { caller: { id: 'acct_1' }, model, stream: true, user: 'u1', upstream: 'openai' });
  ctx.usage.report({ inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 100 });
  ctx.usage.complete();
  return ctx;
}

describe('billing records', () => {
  it("prices by the model's prices and adapter format, or by the serving failover member's", () => {
    const ctx = finished();
    expect(pricedByOf(ctx)).toEqual({ pricing: model?.pricing, format: 'openai' });
    ctx.attempts.push({ upstream: 'b', ok: true, ms: 3, format: 'anthropic' });
    expect(pricedByOf(ctx)).toEqual({ pricing: model?.pricing, format: 'anthropic' });
    ctx.attempts.splice(0, 1, { upstream: 'c', ok: true, ms: 3, format: 'anthropic', pricing: { input: 2_000_000 } });
    // 10 input at 2 + 100 cache reads at 0.1 × 2 (Anthropic) + 5 output at the member's 0 (its own prices leave output out).
    expect(decisionOf(ctx, true)).toMatchObject({ cost: '40', billingStatus: 'billed' });
  });

  it('decides from the confirmed usage at the model price', () => {
    // 10 input + 100 cache reads at half the input price (OpenAI format) + 5 output at 2.
    expect(decisionOf(finished(), true)).toMatchObject({ cost: '70', billingStatus: 'billed' });
  });

  it('does not bill an invalid answer', () => {
    const ctx = finished();
    ctx.invalidAnswer = true;
    expect(decisionOf(ctx, true)).toMatchObject({ cost: '0', billingStatus: 'not_billed' });
  });

  it('writes the settlement and the log line from the context', () => {
    const ctx = finished();
    const decision = decisionOf(ctx, true);
    expect(settlementOf(ctx, decision)).toEqual({ requestId: 'req_42', callerId: 'acct_1', model: 'gpt-x', endpoint: 'chat_completions', ...decision });
    const entry = logEntryOf(ctx, 200, decision);
    expect(entry).toMatchObject({ requestId: 'req_42', callerId: 'acct_1', model: 'gpt-x', stream: true, status: 200, cost: '70', charge: 0, billingStatus: 'billed', upstream: 'openai', user: 'u1', attempts: [], errorCode: null, ttfbMs: null });
    expect(entry.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('names the model asked for when none resolved, and bills nothing without a decision', () => {
    const ctx = createContext('req_43', 'messages');
    ctx.requestedModel = 'no-such-model';
    expect(logEntryOf(ctx, 404, undefined)).toMatchObject({ model: 'no-such-model', callerId: null, usage: null, cost: '0', billingStatus: 'not_billed' });
  });
});
