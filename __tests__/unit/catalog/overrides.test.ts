/** lib/catalog/overrides.ts: the precedence rule between the configured catalog and runtime overrides, and the overrides a wanted catalog needs. */
import { anthropicAdapter, createCatalog, openaiChatAdapter, type ModelEntry } from '../../../lib';
import { applyOverrides, overridesFor } from '../../../lib/catalog/overrides';
import type { CatalogOverride } from '../../../lib/stores/catalog-overrides';

const a = anthropicAdapter({ baseURL: 'http://127.0.0.1:9', apiKey: 'k', name: 'a' });
const o = openaiChatAdapter({ baseURL: 'http://127.0.0.1:9', apiKey: 'k', name: 'o' });
const adapterOf = (name: string) => ({ a, o })[name as 'a' | 'o'];
const configured = createCatalog([
  { id: 'm1', capability: 'llm', upstream: a, pricing: { input: 1, output: 2 } },
  { id: 'm2', capability: 'llm', upstream: a, pricing: { input: 1, output: 2 } },
] as ModelEntry[]);
const override = (model: string, kind: CatalogOverride['kind'], fields: Record<string, unknown> = {}, at = 1): CatalogOverride => ({ model, kind, fields, actor: 'ops', at });

describe('applyOverrides()', () => {
  it('serves an edit over the configured model, showing the values it hides', () => {
    const { catalog, applied } = applyOverrides(configured, [override('m1', 'edit', { upstream: 'o', maxOutputTokens: 50 })], adapterOf);
    expect(catalog.byId.get('m1')).toMatchObject({ upstream: o, maxOutputTokens: 50 });
    expect(applied[0]).toMatchObject({ inUse: true, reason: null, configured: { upstream: 'a', maxOutputTokens: null } });
  });

  it('withdraws a removed model and adds an added one after the configured ones', () => {
    const { catalog } = applyOverrides(configured, [override('m3', 'add', { capability: 'llm', upstream: 'o', free: true }), override('m2', 'remove')], adapterOf);
    expect(catalog.models.map((m) => m.id)).toEqual(['m1', 'm3']);
  });

  it('puts out of use, with the reason, what cannot apply; the configured model serves', () => {
    const { catalog, applied } = applyOverrides(configured, [
      override('m1', 'edit', { upstream: 'gone' }),
      override('m9', 'edit', { free: true }),
    ], adapterOf);
    expect(catalog.models.map((m) => m.id)).toEqual(['m1', 'm2']);
    expect(catalog.byId.get('m1')?.upstream).toBe(a);
    expect(applied.map((x) => [x.inUse, x.reason])).toEqual([
      [false, 'upstream: no adapter named "gone" on this instance'],
      [false, 'the configuration no longer lists this model'],
    ]);
  });

  it("serves an edit of a model's names; one that collides with the catalog (a model configured since) goes out of use, the latest first", () => {
    const { catalog } = applyOverrides(configured, [override('m1', 'edit', { aliases: ['one'], patterns: ['m1-*'] })], adapterOf);
    expect(['one', 'm1-x'].map((name) => catalog.resolve(name)?.id)).toEqual(['m1', 'm1']);
    const reloaded = createCatalog([...configured.models, { id: 'one', capability: 'llm', upstream: a, free: true }]);
    const later = applyOverrides(reloaded, [override('m1', 'edit', { aliases: ['one'] }, 1), override('m2', 'edit', { aliases: ['two'] }, 2), override('m4', 'add', { capability: 'llm', upstream: 'o', free: true, aliases: ['one'] }, 3)], adapterOf);
    expect(later.applied.map((x) => [x.model, x.inUse, x.reason])).toEqual([
      ['m1', false, 'the alias "one" of "m1" is the id of "one"; a name resolves to one model: remove or rename one.'],
      ['m2', true, null],
      ['m4', false, 'the alias "one" of "m4" is the id of "one"; a name resolves to one model: remove or rename one.'],
    ]);
    expect(later.catalog.models.map((m) => [m.id, m.aliases])).toEqual([['m1', undefined], ['m2', ['two']], ['one', undefined]]);
    // Two overrides that collide only with each other: the latest goes out of use.
    const both = applyOverrides(configured, [override('m1', 'edit', { aliases: ['x'] }, 1), override('m2', 'edit', { aliases: ['x'] }, 2)], adapterOf);
    expect(both.applied.map((x) => [x.model, x.inUse])).toEqual([['m1', true], ['m2', false]]);
    expect(both.catalog.resolve('x')?.id).toBe('m1');
  });

  it('never withdraws every model', () => {
    const { catalog, applied } = applyOverrides(configured, [override('m1', 'remove'), override('m2', 'remove')], adapterOf);
    expect(catalog).toBe(configured);
    expect(applied.every((x) => !x.inUse && x.reason === 'withdrawing it would leave no model')).toBe(true);
  });
});

describe('overridesFor()', () => {
  it('gives the changed fields of an edit, a whole add, a remove, and null for a model as configured', () => {
    const wanted = [
      { ...configured.byId.get('m1'), maxOutputTokens: 10 } as ModelEntry,
      { id: 'm3', capability: 'llm', upstream: o, free: true } as ModelEntry,
    ];
    const out = overridesFor(configured, wanted);
    expect(out.get('m1')).toEqual({ kind: 'edit', fields: { maxOutputTokens: 10 } });
    expect(out.get('m3')).toMatchObject({ kind: 'add', fields: { capability: 'llm', upstream: 'o', free: true } });
    expect(out.get('m2')).toEqual({ kind: 'remove', fields: {} });
    expect(overridesFor(configured, [...configured.models]).get('m1')).toBeNull();
  });
});
