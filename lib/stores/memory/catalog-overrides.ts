/** MemoryStore's catalog overrides: kept for the process's life, so a reload (SIGHUP) keeps them and a restart does not. */
import type { CatalogOverride, CatalogOverrideStore, OverrideChange } from '../catalog-overrides';

export class MemoryCatalogOverrides implements CatalogOverrideStore {
  private readonly overrides = new Map<string, CatalogOverride>();
  private version = 0;

  catalogVersion(): string {
    return String(this.version);
  }

  listCatalogOverrides(): { version: string; overrides: CatalogOverride[] } {
    return { version: String(this.version), overrides: [...this.overrides.values()].map((o) => structuredClone(o)) };
  }

  changeCatalogOverrides(changes: readonly OverrideChange[]): string {
    for (const { model, override } of changes) {
      if (override) this.overrides.set(model, structuredClone({ model, ...override }));
      else this.overrides.delete(model);
    }
    return String(++this.version);
  }
}
