/** lib/catalog/members.ts: what serves a model, member by member: the model each is sent and what bills the requests it serves. */
import { anthropicAdapter, createCatalog, failover, openaiChatAdapter, type ModelEntry } from '../../../lib';
import { isGroup, servingMembers } from '../../../lib/catalog/members';

const anthropic = anthropicAdapter({ baseURL: 'http://127.0.0.1:9', apiKey: 'k' });
const openai = openaiChatAdapter({ baseURL: 'http://127.0.0.1:9', apiKey: 'k' });
const llm = (over: Partial<ModelEntry> = {}): ModelEntry => ({ id: 'm', capability: 'llm', upstream: anthropic, pricing: { input: 1, output: 2 }, ...over });

describe('servingMembers()', () => {
  it("lists what bills and is sent for each upstream: one for an adapter, each failover member's own else the model's", () => {
    expect(servingMembers(llm({ upstreamModel: 'up' }))).toEqual([{ upstream: 'anthropic', upstreamModel: 'up', pricing: { input: 1, output: 2 }, format: 'anthropic', ownPricing: false }]);
    const group = llm({ pricing: { input: 3 }, upstream: failover([{ upstream: anthropic, upstreamModel: 'claude-x', pricing: { input: 7 } }, openai]) });
    expect(servingMembers(group)).toEqual([
      { upstream: 'anthropic', upstreamModel: 'claude-x', pricing: { input: 7 }, format: 'anthropic', ownPricing: true },
      { upstream: 'openai', upstreamModel: 'm', pricing: { input: 3 }, format: 'openai', ownPricing: false },
    ]);
    expect(servingMembers(group)).toBe(servingMembers(group));
    expect(() => createCatalog([llm({ pricing: undefined, upstream: failover([{ upstream: anthropic, pricing: { input: 1 } }]) })])).not.toThrow();
  });
});

describe('isGroup()', () => {
  it('tells a failover group from a single adapter', () => {
    expect([isGroup(llm()), isGroup(llm({ upstream: failover([anthropic]) }))]).toEqual([false, true]);
  });
});
