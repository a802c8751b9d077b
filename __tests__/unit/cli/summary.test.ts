/** lib/cli/summary.ts: what serve and validate print of a config: models, and each upstream's URL with credentials masked. */
import { anthropicAdapter, openaiChatAdapter } from '../../../lib';
import type { GatewayConfig } from '../../../lib/cli/config';
import { configWarnings, describeModels, printableURL, upstreamEndpoints, upstreamLines } from '../../../lib/cli/summary';

const config = {
  upstreams: { a: { type: 'anthropic' }, o: { type: 'openai' }, both: { type: 'failover', of: ['a', 'o'] } },
  models: [{ id: 'claude', capability: 'llm', upstream: 'a' }, { id: 'gpt', capability: 'llm', upstream: 'both' }],
} as GatewayConfig;

describe('the start-up summary', () => {
  it('describes the models', () => {
    expect(describeModels(config)).toBe('claude (llm, a), gpt (llm, both)');
  });

  it("names each upstream's endpoint, a failover group by its members, credentials never printed", () => {
    const built = {
      a: anthropicAdapter({ baseURL: 'https://user:pw@api.anthropic.com', apiKey: 'sk-secret' }),
      o: openaiChatAdapter({ baseURL: 'https://api.openai.com/v1', apiKey: 'sk-secret' }),
    };
    const lines = upstreamLines(upstreamEndpoints(config, built));
    expect(lines).toEqual([
      '  upstream a: POST https://***:***@api.anthropic.com/v1/messages',
      '  upstream o: POST https://api.openai.com/v1/chat/completions',
      '  upstream both: failover to a, then o',
    ]);
    expect(lines.join('\n')).not.toMatch(/sk-secret|pw/);
  });

  it('masks only what is there and leaves text that is no URL alone', () => {
    expect(printableURL('https://user@host/x')).toBe('https://***@host/x');
    expect(printableURL('https://host/x')).toBe('https://host/x');
    expect(printableURL('not a url')).toBe('not a url');
  });
});

describe('configWarnings()', () => {
  it('warns of a memory store without an admin section (no key can ever be made), naming both fixes; nothing otherwise', () => {
    const [warning, ...more] = configWarnings(config);
    expect(more).toEqual([]);
    expect(warning).toMatch(/^warning: a memory store and no admin section: no key can ever be made, so every request gets 401\. Add an admin section \(admin: \{ tokens: .*\) .* or use a postgres store \(store: \{ type: postgres, url: "\$\{DATABASE_URL\}" \}\), whose keys `model-gateway keys create` makes$/);
    expect(configWarnings({ ...config, store: { type: 'memory' } })).toHaveLength(1);
    expect(configWarnings({ ...config, admin: { tokens: [{ name: 'a', token: 'x'.repeat(16), access: 'write' }] } })).toEqual([]);
    expect(configWarnings({ ...config, store: { type: 'postgres', url: 'postgres://x' } })).toEqual([]);
  });
});
