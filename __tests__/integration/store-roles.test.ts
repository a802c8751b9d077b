/** The optional store roles on both built-in stores: catalog overrides (all-at-once changes, a version that moves with each) and, on PostgresStore, atomicity. */
import type { CatalogOverrideStore } from '../../lib';
import { catalogOverridesOf } from '../../lib/stores/catalog-overrides';
import { BOTH_STORES, pgStore, type MadeStore } from '../helpers/services';

const edit = { kind: 'edit' as const, fields: { pricing: { input: 2 } }, actor: 'ops', at: 1000 };
const add = { kind: 'add' as const, fields: { capability: 'llm', upstream: 'anthropic', free: true }, actor: 'ops', at: 2000 };

describe.each(BOTH_STORES)('%s: catalogOverrides', (_name, make) => {
  let made: MadeStore;
  let role: CatalogOverrideStore;
  beforeAll(async () => {
    made = await make();
    role = catalogOverridesOf(made.store) as CatalogOverrideStore;
  });
  afterAll(async () => made.drop());

  it('keeps each model\'s override, changes them all at once, and moves the version with every change', async () => {
    expect(role).toBeDefined();
    const v0 = await role.catalogVersion();
    expect(await role.listCatalogOverrides()).toEqual({ version: v0, overrides: [] });
    const v1 = await role.changeCatalogOverrides([{ model: 'a', override: edit }, { model: 'b', override: add }]);
    expect([v1 !== v0, await role.catalogVersion()]).toEqual([true, v1]);
    expect(await role.listCatalogOverrides()).toEqual({ version: v1, overrides: [{ model: 'a', ...edit }, { model: 'b', ...add }] });
    const v2 = await role.changeCatalogOverrides([{ model: 'a', override: null }, { model: 'b', override: { ...add, fields: { ...add.fields, free: false }, at: 3000 } }]);
    expect(new Set([v0, v1, v2]).size).toBe(3);
    expect(await role.listCatalogOverrides()).toEqual({ version: v2, overrides: [{ model: 'b', ...add, fields: { ...add.fields, free: false }, at: 3000 }] });
    expect(await role.changeCatalogOverrides([])).not.toBe(v2); // a write moves it even when it changes no row
  });
});

it('PostgresStore: a change that fails changes nothing, the version included', async () => {
  const made = await pgStore();
  try {
    const role = made.store.catalogOverrides;
    const v = await role.changeCatalogOverrides([{ model: 'a', override: edit }]);
    const bad = { ...edit, kind: 'rename' as unknown as 'edit' };
    await expect(role.changeCatalogOverrides([{ model: 'a', override: null }, { model: 'c', override: bad }])).rejects.toThrow(/catalog_overrides_kind_check/);
    expect(await role.listCatalogOverrides()).toEqual({ version: v, overrides: [{ model: 'a', ...edit }] });
  } finally {
    await made.drop();
  }
});
