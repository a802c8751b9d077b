/**
 * The members of a group of upstreams (failover() today): each an adapter with, optionally, the
 * upstream model it is sent and the prices of the requests it serves. A group registers its
 * members here, so the catalog, billing and the admin API read each member's model and prices.
 */
import { GatewayConfigError } from '../foundation/config-errors';
import { checkKnownOptions } from '../foundation/check-options';
import type { Pricing, UpstreamFormat } from '../billing/figures';
import { pricingProblem } from '../billing/pricing';
import type { UpstreamAttempt } from '../billing/records';
import type { MessagesAdapter, RerankAdapter } from './types';

type Adapter = MessagesAdapter | RerankAdapter;

/** One member of a group of upstreams, as a host writes it (a plain adapter is a member with nothing of its own). */
export interface UpstreamMember<A extends Adapter = MessagesAdapter> {
  /** The adapter that reaches this member's upstream (a group too: its members inherit what this one sets). */
  upstream: A;
  /** The model name this member is sent. Default: the model's `upstreamModel` (else its id). */
  upstreamModel?: string;
  /** The prices of the requests this member serves (those left out default by its format). Default: the model's `pricing`. */
  pricing?: Pricing;
}

/** A member as a group keeps it: checked and frozen. */
export interface Member<A extends Adapter = Adapter> {
  readonly upstream: A;
  readonly upstreamModel?: string;
  readonly pricing?: Readonly<Pricing>;
}

/** One upstream a model may be served by (nested groups flattened), with the model and prices it is given, its own or a group's around it. */
export interface Leaf {
  readonly upstream: Adapter;
  readonly format: UpstreamFormat | undefined;
  readonly upstreamModel?: string;
  readonly pricing?: Readonly<Pricing>;
}

const MEMBER_FIELDS = ['upstream', 'upstreamModel', 'pricing'];
/** Longest model name a member is sent (the bound of a model name in a body). */
const MAX_MODEL_NAME = 256;

const isAdapter = (x: unknown): x is Adapter => typeof x === 'object' && x !== null && typeof (x as { kind?: unknown }).kind === 'string';

/** Checks one member (`at` names it: `failover: member 1`), failing with the fix. */
function memberOf<A extends Adapter>(given: A | UpstreamMember<A>, at: string): Member<A> {
  if (isAdapter(given)) return Object.freeze({ upstream: given });
  if (typeof given !== 'object' || given === null || !isAdapter((given as { upstream?: unknown }).upstream)) {
    throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', `${at} must be an adapter, or { upstream: <adapter>, upstreamModel?, pricing? }.`);
  }
  checkKnownOptions(at, given, MEMBER_FIELDS);
  const { upstream, upstreamModel, pricing } = given;
  if (upstreamModel !== undefined && (typeof upstreamModel !== 'string' || upstreamModel.length === 0 || upstreamModel.length > MAX_MODEL_NAME)) {
    throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', `${at}: "upstreamModel" must be a non-empty string of at most ${MAX_MODEL_NAME} characters (the name this upstream is sent).`);
  }
  const problem = pricing === undefined ? undefined : pricingProblem(pricing);
  if (problem) throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', `${at}: ${problem}.`);
  return Object.freeze({ upstream, ...(upstreamModel !== undefined ? { upstreamModel } : {}), ...(pricing !== undefined ? { pricing: Object.freeze({ ...pricing }) } : {}) });
}

/** A group's members, checked (`who` names the group in errors: `failover`). */
export function membersFrom<A extends Adapter>(list: readonly (A | UpstreamMember<A>)[], who: string): Member<A>[] {
  if (!Array.isArray(list) || list.length === 0) throw new GatewayConfigError('ERR_MGW_MISSING_OPTION', `${who}: pass at least one adapter.`);
  const members = list.map((given, i) => memberOf(given, `${who}: member ${i}`));
  if (new Set(members.map((m) => m.upstream.kind)).size !== 1) throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', `${who}: all adapters must be of one kind (messages or rerank).`);
  for (const [i, m] of members.entries()) {
    if (m.pricing && leavesOf(m.upstream).every((leaf) => leaf.pricing !== undefined)) {
      throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', `${who}: member ${i}: its "pricing" is charged by none of its own members (each carries its own); remove it.`);
    }
  }
  return members;
}

const groups = new WeakMap<Adapter, readonly Member[]>();

/** Makes `group` known as a group of `members` (what leavesOf() and the admin API read). */
export function registerMembers<A extends Adapter>(group: A, members: readonly Member[]): A {
  groups.set(group, Object.freeze([...members]));
  return group;
}

/** The members of a group adapter; undefined for any other adapter. */
export function membersOf(adapter: Adapter): readonly Member[] | undefined {
  return groups.get(adapter);
}

/**
 * Every upstream an adapter may reach, nested groups flattened, each with the upstream model and
 * prices it is given: its own, else the nearest group member's around it that sets them (so the
 * innermost wins, as the request it is sent and the attempt that bills it do).
 */
export function leavesOf(adapter: Adapter, around: Omit<Leaf, 'upstream' | 'format'> = {}): Leaf[] {
  const members = groups.get(adapter);
  if (!members) return [{ upstream: adapter, format: adapter.kind === 'messages' ? adapter.format : undefined, ...around }];
  return members.flatMap((m) => leavesOf(m.upstream, {
    ...(m.upstreamModel ?? around.upstreamModel ? { upstreamModel: m.upstreamModel ?? around.upstreamModel } : {}),
    ...(m.pricing ?? around.pricing ? { pricing: m.pricing ?? around.pricing } : {}),
  }));
}

/** The request a member is sent: the model name its own, when it has one. */
export function sentTo<R extends { model: string }>(request: R, member: Member): R {
  return member.upstreamModel === undefined ? request : { ...request, model: member.upstreamModel };
}

/** What an attempt at a member records besides its outcome: its format, the model it was sent, its own prices (those bill a request it served). */
export function attemptFacts(member: Member, sent: string | undefined): Pick<UpstreamAttempt, 'format' | 'model' | 'pricing'> {
  const { upstream } = member;
  const format = upstream.kind === 'messages' ? upstream.format : undefined;
  const model = member.upstreamModel ?? sent;
  return { ...(format ? { format } : {}), ...(model !== undefined ? { model } : {}), ...(member.pricing ? { pricing: member.pricing } : {}) };
}
