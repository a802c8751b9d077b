/** lib/catalog/catalog.ts: the catalog checked at construction (errors by ERR_MGW_* code), each model's profile, formats through failover groups. */
import { anthropicAdapter, cohereAdapter, createCatalog, failover, LiveCatalog, openaiChatAdapter, type ModelEntry } from '../../../lib';
import { allowed, catalogReader, DEFAULT_MAX_TOKENS, formatOf, profileOf, V1_PROFILE } from '../../../lib/catalog/catalog';
import { servingMembers } from '../../../lib/catalog/members';
import { formatsOf } from '../../../lib/upstreams/failover';
import * as lib from '../../../lib';
import { refused } from '../../helpers/config-error';
import { codeBlocks, runModule } from '../../helpers/doc-blocks';

const anthropic = anthropicAdapter({ baseURL: 'http://127.0.0.1:9', apiKey: 'k' });
const openai = openaiChatAdapter({ baseURL: 'http://127.0.0.1:9', apiKey: 'k' });
const ranker = cohereAdapter({ baseURL: 'http://127.0.0.1:9', apiKey: 'k' });
const llm = (over: Partial<ModelEntry> = {}): ModelEntry => ({ id: 'm', capability: 'llm', upstream: anthropic, pricing: { input: 1, output: 2 }, ...over });

describe('createCatalog()', () => {
  it('indexes and freezes a valid list, once per list', () => {
    const list = [llm(), llm({ id: 'r', capability: 'rerank', upstream: ranker })];
    const catalog = createCatalog(list);
    expect([...catalog.byId.keys()]).toEqual(['m', 'r']);
    expect(Object.isFrozen(catalog.models[0])).toBe(true);
    expect(createCatalog(list)).toBe(catalog);
    expect(createCatalog(catalog)).toBe(catalog);
  });

  it.each([
    ['an empty list', [], 'ERR_MGW_CATALOG_EMPTY', 'at least one model'],
    ['no list', undefined, 'ERR_MGW_CATALOG_EMPTY', 'non-empty array'],
    ['a duplicate id', [llm(), llm()], 'ERR_MGW_CATALOG_DUPLICATE_ID', '"m" is listed twice'],
    ['an empty id', [llm({ id: '' })], 'ERR_MGW_CATALOG_INVALID_MODEL', 'models[0]: "id" must be a non-empty string.'],
    ['an unknown capability', [llm({ capability: 'chat' as never })], 'ERR_MGW_CATALOG_INVALID_MODEL', '"capability" of "m"'],
    ['an adapter of the wrong kind', [llm({ upstream: ranker })], 'ERR_MGW_CATALOG_INVALID_MODEL', 'must be a messages adapter'],
    ['no pricing and not free', [llm({ pricing: undefined })], 'ERR_MGW_CATALOG_INVALID_MODEL', 'has no "pricing"'],
    ['a bad price', [llm({ pricing: { input: -1 } })], 'ERR_MGW_CATALOG_INVALID_MODEL', 'models[0]: "m": '],
    ['a bad maxOutputTokens', [llm({ maxOutputTokens: 0 })], 'ERR_MGW_CATALOG_INVALID_MODEL', '"maxOutputTokens" of "m"'],
    ['a flag that is no boolean', [llm({ agentReady: 'yes' as never })], 'ERR_MGW_CATALOG_INVALID_MODEL', '"agentReady" of "m" must be true or false.'],
    ['clampMaxTokens without a bound', [llm({ clampMaxTokens: true })], 'ERR_MGW_CATALOG_INVALID_MODEL', 'needs "maxOutputTokens"'],
    ['an agent-ready rerank model', [llm({ capability: 'rerank', upstream: ranker, agentReady: true })], 'ERR_MGW_CATALOG_INVALID_MODEL', 'only an llm model'],
    ['a createdAt that is no date', [llm({ createdAt: 'yesterday' })], 'ERR_MGW_CATALOG_INVALID_MODEL', 'RFC 3339'],
    ['aliases that are no list', [llm({ aliases: 'm2' as never })], 'ERR_MGW_CATALOG_INVALID_MODEL', '"aliases" of "m" must be a list of names.'],
    ['an alias with a wildcard', [llm({ aliases: ['m-*'] })], 'ERR_MGW_CATALOG_INVALID_MODEL', 'aliases[0] of "m": "m-*" holds "*": a name with wildcards goes in "patterns".'],
    ['a pattern without one', [llm({ patterns: ['m-1'] })], 'ERR_MGW_CATALOG_INVALID_MODEL', 'patterns[0] of "m": "m-1" has no "*"'],
    ['an alias that is another id', [llm({ aliases: ['n'] }), llm({ id: 'n' })], 'ERR_MGW_CATALOG_NAME_COLLISION', 'the alias "n" of "m" is the id of "n"'],
    ['two patterns as specific sharing a name', [llm({ patterns: ['c-*'] }), llm({ id: 'n', patterns: ['*-c'] })], 'ERR_MGW_CATALOG_NAME_COLLISION', 'both match "c-c"'],
    ['no pricing where a member has none', [llm({ pricing: undefined, upstream: failover([{ upstream: anthropic, pricing: { input: 1 } }, openai]) })], 'ERR_MGW_CATALOG_INVALID_MODEL', 'has no "pricing"'],
    ['a pricing every member overrides', [llm({ upstream: failover([{ upstream: anthropic, pricing: { input: 1 } }]) })], 'ERR_MGW_CATALOG_INVALID_MODEL', '"pricing" of "m" is charged by no request'],
  ])('refuses %s by code', (_case, list, code, wording) => {
    expect(() => createCatalog(list as never)).toThrow(refused(code as never, wording));
  });
});

describe('profileOf()', () => {
  it('gives a plain model the V1 profile itself', () => {
    expect(profileOf(createCatalog([llm()]).models[0] as ModelEntry)).toBe(V1_PROFILE);
    expect(V1_PROFILE).toEqual({ contract: 'v1', passThrough: false, forwardHeaders: [], autoCache: false, clampMaxTokens: false, defaultMaxTokens: DEFAULT_MAX_TOKENS });
  });

  it('gives an agent-ready model the whole contract, its headers, and automatic caching on an Anthropic upstream only', () => {
    expect(profileOf(llm({ agentReady: true }))).toEqual({ contract: 'agent', passThrough: true, forwardHeaders: ['anthropic-version', 'anthropic-beta'], autoCache: true, clampMaxTokens: false, defaultMaxTokens: DEFAULT_MAX_TOKENS });
    expect(profileOf(llm({ agentReady: true, autoCache: false })).autoCache).toBe(false);
    expect(profileOf(llm({ agentReady: true, upstream: openai })).autoCache).toBe(false);
    expect(profileOf(llm({ agentReady: true, upstream: failover([openai, anthropic]) })).autoCache).toBe(true);
  });

  it("takes the output bound and clamping from the model, once per entry", () => {
    const model = llm({ maxOutputTokens: 100, clampMaxTokens: true });
    expect(profileOf(model)).toMatchObject({ contract: 'v1', clampMaxTokens: true, defaultMaxTokens: 100 });
    expect(profileOf(model)).toBe(profileOf(model));
  });
});

describe('formats and access', () => {
  it("reads a model's format from its adapter, and a failover group's members' formats", () => {
    expect(formatOf(llm({ upstream: openai }))).toBe('openai');
    expect(formatOf(llm({ capability: 'rerank', upstream: ranker }))).toBeUndefined();
    expect(formatsOf(failover([anthropic, openai]))).toEqual(['anthropic', 'openai']);
    expect(formatOf(llm({ upstream: failover([openai, openai]) }))).toBe('openai');
    expect(formatOf(llm({ upstream: failover([anthropic, openai]) }))).toBeUndefined();
  });

  it("lets a caller use a model on its allow-list, or every model without one", () => {
    expect(allowed(undefined, 'm')).toBe(true);
    expect(allowed({ id: 'a' }, 'm')).toBe(true);
    expect(allowed({ id: 'a', models: ['x'] }, 'm')).toBe(false);
  });
});

describe('names', () => {
  it('resolves an id, an alias, then the most specific pattern; a hand-made catalog without resolve() is indexed again', () => {
    const catalog = createCatalog([llm({ id: 'opus', aliases: ['claude-opus-4-8[1m]'], patterns: ['claude-opus-*'] }), llm({ id: 'any', patterns: ['claude-*'] })]);
    expect(['opus', 'claude-opus-4-8[1m]', 'claude-opus-5', 'claude-haiku', 'gpt'].map((name) => catalog.resolve(name)?.id)).toEqual(['opus', 'opus', 'opus', 'any', undefined]);
    expect(Object.isFrozen(catalog.byId.get('opus')?.aliases)).toBe(true);
    expect(createCatalog({ models: catalog.models, byId: catalog.byId } as never).resolve('claude-opus-5')?.id).toBe('opus');
  });
});

describe('LiveCatalog', () => {
  it('swaps a checked list whole, keeps the old one on a bad list, and lays its overlay over each', () => {
    const live = new LiveCatalog([llm()]);
    const read = catalogReader(live);
    live.overlay((configured) => createCatalog([...configured.models, llm({ id: 'extra' })]));
    expect([...read().byId.keys()]).toEqual(['m', 'extra']);
    expect(() => live.replace([])).toThrow(refused('ERR_MGW_CATALOG_EMPTY'));
    expect([...read().byId.keys()]).toEqual(['m', 'extra']);
    live.replace([llm({ id: 'n' })]);
    expect([...read().byId.keys()]).toEqual(['n', 'extra']);
    expect([...live.base().byId.keys()]).toEqual(['n']);
  });
});

describe("docs/catalog.md's library snippet, as written", () => {
  it('builds a catalog whose names and failover members are what the page says', () => {
    const [snippet] = codeBlocks('docs/catalog.md', 'ts');
    const { models } = runModule(snippet as string, { 'model-gateway': lib }) as { models: ModelEntry[] };
    const catalog = createCatalog(models);
    expect(['claude-opus-4-8[1m]', 'claude-opus-4-8', 'claude-opus'].map((name) => catalog.resolve(name)?.id)).toEqual(['claude-opus', 'claude-opus', 'claude-opus']);
    expect(servingMembers(catalog.byId.get('flagship') as ModelEntry).map((m) => [m.upstream, m.upstreamModel, m.format, m.pricing])).toEqual([
      ['anthropic', 'claude-sonnet-4-5', 'anthropic', { input: 300, output: 1500 }], ['openai', 'gpt-5.1', 'openai', { input: 125, output: 1000, cacheRead: '12.5' }],
    ]);
  });
});
