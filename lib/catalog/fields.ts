/** A model as data (adapters by name): what the admin API shows and takes, and what a runtime override of the catalog keeps. */
import { GatewayConfigError } from '../foundation/config-errors';
import type { ModelEntry } from './catalog';
import type { Capability, Pricing } from '../types';
import type { MessagesAdapter, RerankAdapter } from '../upstreams/types';

/** Every field of a model but its id, each with a value (null: not set). */
export interface ModelFields {
  capability: Capability;
  upstream: string;
  aliases: string[];
  patterns: string[];
  upstreamModel: string;
  pricing: Pricing | null;
  free: boolean;
  maxOutputTokens: number | null;
  temperature: boolean;
  displayName: string | null;
  createdAt: string | null;
  agentReady: boolean;
  clampMaxTokens: boolean;
  autoCache: boolean;
}

type Adapter = MessagesAdapter | RerankAdapter;
type Optional = Exclude<keyof ModelFields, 'capability' | 'upstream'>;

/** The value each optional field has when a model leaves it out: the one table the view, the entry and the diff derive from. */
const UNSET: { readonly [K in Optional]: (id: string) => ModelFields[K] } = {
  aliases: () => [], patterns: () => [], upstreamModel: (id) => id, pricing: () => null, free: () => false, maxOutputTokens: () => null,
  temperature: () => true, displayName: () => null, createdAt: () => null, agentReady: () => false,
  clampMaxTokens: () => false, autoCache: () => true,
};
const OPTIONAL = Object.keys(UNSET) as Optional[];

/** The names of a model's fields, in the order the admin API shows them. */
export const MODEL_FIELDS: readonly (keyof ModelFields)[] = ['capability', 'upstream', ...OPTIONAL];

/** A model's fields, each with its value (the unset ones with theirs). */
export function fieldsOf(m: Readonly<ModelEntry>): ModelFields {
  const fields: Record<string, unknown> = { capability: m.capability, upstream: m.upstream.name };
  for (const key of OPTIONAL) fields[key] = m[key] ?? UNSET[key](m.id);
  return fields as unknown as ModelFields;
}

/** JSON equality that ignores the order of object keys (prices given in any order are the same prices). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** The fields of `to` whose value differs from `from`'s. */
export function changedFields(from: ModelFields, to: ModelFields): Partial<ModelFields> {
  const changed: Record<string, unknown> = {};
  for (const key of MODEL_FIELDS) if (!sameValue(from[key], to[key])) changed[key] = to[key];
  return changed as Partial<ModelFields>;
}

/**
 * The entry of model `id`: `base` (a configured entry, or none) with `fields` set over it, an
 * adapter found by name only when `upstream` is among them. Fields at their unset value are left
 * out, as a hand-written entry would leave them; anything else of `base` (options no view shows) stays.
 */
export function withFields(id: string, base: Readonly<ModelEntry> | undefined, fields: Partial<ModelFields>, adapterOf: (name: string) => Adapter | undefined): ModelEntry {
  const entry: Record<string, unknown> = { ...base, id };
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'upstream') {
      const adapter = typeof value === 'string' ? adapterOf(value) : undefined;
      if (!adapter) throw new GatewayConfigError('ERR_MGW_CATALOG_UNKNOWN_UPSTREAM', `upstream: no adapter named ${JSON.stringify(value)} on this instance`);
      entry.upstream = adapter;
    } else if (key === 'capability') entry.capability = value;
    else if (Object.hasOwn(UNSET, key)) {
      if (sameValue(value, UNSET[key as Optional](id))) delete entry[key];
      else entry[key] = value;
    }
  }
  return entry as unknown as ModelEntry;
}
