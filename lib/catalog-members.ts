/** What serves a model: each upstream it may reach (a failover group's members, nested ones flattened), the model name it is sent and what bills the requests it serves. */
import type { PricedBy } from './billing/settle';
import type { ModelEntry } from './catalog';
import { leavesOf, membersOf } from './upstreams/members';

/** One upstream a model may be served by, with the model name it is sent and what bills the requests it serves. */
export interface ServingMember extends PricedBy {
  /** The adapter's name (as the request log's `upstream` and `attempts` name it). */
  readonly upstream: string;
  readonly upstreamModel: string;
  /** Whether the prices are the member's own (else the model's). */
  readonly ownPricing: boolean;
}

const serving = new WeakMap<Readonly<ModelEntry>, readonly ServingMember[]>();

/**
 * Every upstream a model may be served by (a plain adapter: one; a failover() group: each member,
 * nested groups flattened), with the model name it is sent and its prices and format: what a
 * request it serves is sent and charged (made once per entry).
 */
export function servingMembers(model: Readonly<ModelEntry>): readonly ServingMember[] {
  let out = serving.get(model);
  if (!out) {
    out = Object.freeze(leavesOf(model.upstream).map((leaf) => Object.freeze({
      upstream: leaf.upstream.name, upstreamModel: leaf.upstreamModel ?? model.upstreamModel ?? model.id,
      pricing: leaf.pricing ?? model.pricing, format: leaf.format, ownPricing: leaf.pricing !== undefined,
    })));
    serving.set(model, out);
  }
  return out;
}

/** Whether a model's upstream is a group of members (failover()). */
export const isGroup = (model: Readonly<ModelEntry>): boolean => membersOf(model.upstream) !== undefined;
