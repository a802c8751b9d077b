/**
 * The one precedence rule between the configured catalog and the runtime overrides a store keeps:
 * an edited field's runtime value wins over the configured one until reverted; an override of a
 * model the configuration no longer lists (or one that no longer makes a valid model) is out of use.
 */
import { wordingOf } from '../foundation/config-errors';
import { createCatalog, type Catalog, type ModelEntry } from './catalog';
import { changedFields, fieldsOf, withFields, type ModelFields } from './fields';
import type { CatalogOverride } from '../stores/catalog-overrides';
import type { MessagesAdapter, RerankAdapter } from '../upstreams/types';

/** An override as it applies on this instance: whether it is in use (and why not), and the configured values it hides. */
export interface AppliedOverride extends CatalogOverride {
  inUse: boolean;
  /** Why it is out of use; null while in use. */
  reason: string | null;
  /** For an edit in use: the configured value of each field it sets; else null. */
  configured: Partial<ModelFields> | null;
}

const reasonOf = (err: unknown): string => wordingOf(err).replace(/^models\[0\]: /, '');

/** The entry an override makes (throws with the reason when it makes no valid model). */
function entryOf(o: CatalogOverride, base: Readonly<ModelEntry> | undefined, adapterOf: (name: string) => MessagesAdapter | RerankAdapter | undefined): ModelEntry {
  const entry = withFields(o.model, base, o.fields as Partial<ModelFields>, adapterOf);
  createCatalog([entry]); // the catalog's own checks, for this model alone
  return entry;
}

/**
 * The catalog `overrides` make of `configured`, in its order (models added at runtime after, by
 * time), and how each override applied. It never throws: an override that cannot apply is listed
 * out of use and the configured model serves.
 */
export function applyOverrides(configured: Catalog, overrides: readonly CatalogOverride[], adapterOf: (name: string) => MessagesAdapter | RerankAdapter | undefined): { catalog: Catalog; applied: AppliedOverride[] } {
  const byModel = new Map(overrides.map((o) => [o.model, o]));
  const applied = new Map<string, AppliedOverride>();
  const out = (o: CatalogOverride, reason: string): void => { applied.set(o.model, { ...o, inUse: false, reason, configured: null }); };
  const models: ModelEntry[] = [];
  /** The entries overrides made that may take a name (an added model, an edit of its names), with the configured model each replaces. */
  const naming: Array<{ o: CatalogOverride; entry: ModelEntry; instead: Readonly<ModelEntry> | undefined }> = [];
  const names = (fields: Record<string, unknown>): boolean => 'aliases' in fields || 'patterns' in fields;
  for (const m of configured.models) {
    const o = byModel.get(m.id);
    if (!o) models.push(m);
    else if (o.kind === 'remove') applied.set(o.model, { ...o, inUse: true, reason: null, configured: null });
    else if (o.kind === 'add') {
      out(o, 'the configuration lists this model now; its entry serves');
      models.push(m);
    } else {
      try {
        const entry = entryOf(o, m, adapterOf);
        models.push(entry);
        if (names(o.fields)) naming.push({ o, entry, instead: m });
        const base = fieldsOf(m);
        const hidden = Object.fromEntries(Object.keys(o.fields).map((k) => [k, base[k as keyof ModelFields]]));
        applied.set(o.model, { ...o, inUse: true, reason: null, configured: hidden });
      } catch (err) {
        out(o, reasonOf(err));
        models.push(m);
      }
    }
  }
  const byTime = [...overrides].sort((a, b) => a.at - b.at || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
  for (const o of byTime) {
    if (configured.byId.has(o.model)) continue;
    if (o.kind !== 'add') {
      out(o, 'the configuration no longer lists this model');
      continue;
    }
    try {
      const entry = entryOf(o, undefined, adapterOf);
      models.push(entry);
      naming.push({ o, entry, instead: undefined });
      applied.set(o.model, { ...o, inUse: true, reason: null, configured: null });
    } catch (err) {
      out(o, reasonOf(err));
    }
  }
  if (models.length === 0) {
    // Withdrawing every model would leave nothing to serve: the configured catalog serves, withdrawals out of use.
    for (const o of applied.values()) if (o.kind === 'remove') out(o, 'withdrawing it would leave no model');
    return { catalog: configured, applied: overrides.map((o) => applied.get(o.model) as AppliedOverride) };
  }
  return { catalog: withoutCollisions(models, naming, out), applied: overrides.map((o) => applied.get(o.model) as AppliedOverride) };
}

/**
 * The catalog of `models`; when a name an override gave collides with another model's (a model
 * the configuration added since, another instance's edit), that override goes out of use: first
 * each that collides with the configuration itself, then, of those left, the latest first, until
 * none collides (the configuration alone never does).
 */
function withoutCollisions(models: ModelEntry[], naming: Array<{ o: CatalogOverride; entry: ModelEntry; instead: Readonly<ModelEntry> | undefined }>, out: (o: CatalogOverride, reason: string) => void): Catalog {
  const problem = (list: readonly ModelEntry[]): string | undefined => {
    try {
      createCatalog(list);
      return undefined;
    } catch (err) {
      return reasonOf(err).replace(/^option "models": /, '');
    }
  };
  /** `list` with each of `undone` back to what it replaced. */
  const without = (list: readonly ModelEntry[], undone: typeof naming): ModelEntry[] => list.flatMap((m) => {
    const n = undone.find((x) => x.entry === m);
    return !n ? [m] : n.instead ? [n.instead] : [];
  });
  if (problem(models) === undefined) return createCatalog(models);
  const left = [...naming];
  for (const n of naming) {
    const alone = problem(without(models, naming.filter((x) => x !== n)));
    if (alone === undefined) continue;
    out(n.o, alone);
    left.splice(left.indexOf(n), 1);
  }
  let list = without(models, naming.filter((n) => !left.includes(n)));
  for (const n of [...left].sort((a, b) => b.o.at - a.o.at)) {
    const reason = problem(list);
    if (reason === undefined) break;
    out(n.o, reason);
    list = without(list, [n]);
  }
  return createCatalog(list);
}

/**
 * The overrides that make the catalog `wanted` of `configured`: a configured model edited (its
 * changed fields only) or withdrawn, a model added; null for a model that is as configured.
 */
export function overridesFor(configured: Catalog, wanted: readonly ModelEntry[]): Map<string, Pick<CatalogOverride, 'kind' | 'fields'> | null> {
  const out = new Map<string, Pick<CatalogOverride, 'kind' | 'fields'> | null>();
  for (const m of wanted) {
    const base = configured.byId.get(m.id);
    const fields: Record<string, unknown> = base ? changedFields(fieldsOf(base), fieldsOf(m)) : { ...fieldsOf(m) };
    out.set(m.id, !base ? { kind: 'add', fields } : Object.keys(fields).length > 0 ? { kind: 'edit', fields } : null);
  }
  for (const m of configured.models) if (!out.has(m.id)) out.set(m.id, { kind: 'remove', fields: {} });
  return out;
}
