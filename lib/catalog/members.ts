/** What serves a model: each upstream it may reach (a failover group's members, nested ones flattened), the model name it is sent and what bills the requests it serves. */
import type { PricedBy } from '../billing/settle';
import { formatOf, type ModelEntry } from './catalog';
import { leavesOf, membersOf } from '../upstreams/members';

/** One upstream a model may be served by, with the model name it is sent and what bills the requests it serves. */
export interface ServingMember extends PricedBy {
  /** The adapter's name (as the request log's `upstream` and `attempts` name it). */
  readonly upstream: string;
  readonly upstreamModel: string;
  /** Whether the prices are the member's own (else the model's). */
  readonly ownPricing: boolean;
}

/** What serves a model, made once per entry (the request path reads it on every request). */
interface Serving {
  readonly members: readonly ServingMember[];
  readonly own: PricedBy;
  readonly upstreamNames: readonly string[];
}

const serving = new WeakMap<Readonly<ModelEntry>, Serving>();

function servingOf(model: Readonly<ModelEntry>): Serving {
  let out = serving.get(model);
  if (!out) {
    const members = Object.freeze(leavesOf(model.upstream).map((leaf) => Object.freeze({
      upstream: leaf.upstream.name, upstreamModel: leaf.upstreamModel ?? model.upstreamModel ?? model.id,
      pricing: leaf.pricing ?? model.pricing, format: leaf.format, ownPricing: leaf.pricing !== undefined,
    })));
    const upstreamNames = Object.freeze([...new Set(members.map((m) => m.upstreamModel))].sort((a, b) => b.length - a.length));
    out = Object.freeze({ members, own: Object.freeze({ pricing: model.pricing, format: formatOf(model) }), upstreamNames });
    serving.set(model, out);
  }
  return out;
}

/**
 * Every upstream a model may be served by (a plain adapter: one; a failover() group: each member,
 * nested groups flattened), with the model name it is sent and its prices and format: what a
 * request it serves is sent and charged.
 */
export const servingMembers = (model: Readonly<ModelEntry>): readonly ServingMember[] => servingOf(model).members;

/** What bills a model's request unless a member with prices of its own served it: the model's pricing, by its adapter's format. */
export const ownPricedBy = (model: Readonly<ModelEntry>): PricedBy => servingOf(model).own;

/** Every model name a model's upstreams are sent (its failover members' own included), longest first. */
export const upstreamNamesOf = (model: Readonly<ModelEntry>): readonly string[] => servingOf(model).upstreamNames;

/** Whether a model's upstream is a group of members (failover()). */
export const isGroup = (model: Readonly<ModelEntry>): boolean => membersOf(model.upstream) !== undefined;
