/** Admin routes for budgets: organisations' and accounts' budgets, account membership, usage per scope and period (a key's sessions), run keys minted by an operator. */
import { Type, type Static } from '@sinclair/typebox';
import { PeriodCache } from '../budgets/periods';
import { GatewayError } from '../foundation/errors';
import { BUDGET_PERIODS, runKeyBodySchema, timeZoneProblem, type BudgetCap, type BudgetLimits } from '../schemas/budgets';
import { enumOf, orNull } from '../schemas/shapes';
import { emptyUsage } from '../stores/budgets';
import { unknownModel } from '../stores/keys';
import { mintRunKey } from '../stores/run-keys';
import { notFoundError } from './http';
import { page, paging, queryText, ref, timeSchema } from './schemas';
import { audit } from './store';
import { defineRoute, type AdminContext, type AdminRoute } from './table';

const { Optional } = Type;
const capValue = (description: string) => Optional(orNull(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description })));

/** One scope's caps as an operator sends them: `timeZone` defaults to UTC, a cap left out is none. */
export const capInputSchema = Type.Object({
  amount: capValue('Money per period, in integer minor units (null: none)'),
  period: enumOf(BUDGET_PERIODS),
  timeZone: Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone; default UTC' })),
  requests: capValue('Requests per period'),
  tokens: capValue('Tokens per period'),
}, { additionalProperties: false });

/** A budget as an operator sends it: its caps, and optionally each session's and each subagent's. */
export const limitsInputSchema = Type.Object({
  ...capInputSchema.properties,
  perSession: Optional(Type.Union([capInputSchema, Type.Null()])),
  perSubagent: Optional(Type.Union([capInputSchema, Type.Null()])),
}, { additionalProperties: false });

type CapInput = Static<typeof capInputSchema>;

const capOf = (c: CapInput): BudgetCap => ({ amount: c.amount ?? null, period: c.period, timeZone: c.timeZone ?? 'UTC', requests: c.requests ?? null, tokens: c.tokens ?? null });

/** A budget as stores keep it, from what an operator sent: defaults filled, time zones checked (400 naming the field). */
export function limitsOf(input: Static<typeof limitsInputSchema>, at = 'body'): BudgetLimits {
  const limits: BudgetLimits = { ...capOf(input), perSession: input.perSession ? capOf(input.perSession) : null, perSubagent: input.perSubagent ? capOf(input.perSubagent) : null };
  const problem = timeZoneProblem(limits, at);
  if (problem) throw new GatewayError('invalid_request_error', problem);
  return limits;
}

const scopeOf = (params: Record<string, string>): string => params.scope ?? '';
const periods = new PeriodCache();

/** A scope's budget wherever it is kept: a stored one (organisation, account), or a key's record (key, run key). */
async function limitsAt(ctx: AdminContext, scope: string): Promise<BudgetLimits | undefined> {
  const keyed = /^(key|run):(.+)$/.exec(scope);
  if (!keyed) return (await ctx.store.getBudget(scope))?.limits;
  const record = await ctx.store.getKey(keyed[2] ?? '');
  const kind = record?.parentKeyId === null ? 'key' : 'run';
  return record && kind === keyed[1] ? record.budget ?? undefined : undefined;
}

export const budgetRoutes: readonly AdminRoute[] = [
  defineRoute({
    method: 'get', path: '/budgets', summary: 'Budgets of organisations and accounts, in scope order', access: 'read', query: Type.Object(paging), answer: page('Budget'),
    handle: ({ query, ctx }) => ctx.store.listBudgets(query),
  }),
  defineRoute({
    method: 'put', path: '/budgets/{scope}', summary: 'Create or replace the budget of "org:<id>" or "account:<callerId>" (a key\'s budget: PATCH /keys/{keyId})', access: 'write',
    body: limitsInputSchema, answer: ref('Budget'),
    async handle({ params, body, res, ctx }) {
      const out = await ctx.store.putBudget(scopeOf(params), limitsOf(body));
      await audit(ctx.store, res, 'budget.put', `budget:${out.after.scope}`, out.before ?? null, out.after);
      return out.after;
    },
  }),
  defineRoute({
    method: 'get', path: '/budgets/{scope}', access: 'read', answer: ref('BudgetPosition'),
    summary: 'A scope\'s budget (org:, account:, key:, run:) and its usage in the period `at` falls in (default: now)',
    query: Type.Object({ at: Optional(timeSchema) }),
    async handle({ params, query, ctx }) {
      const scope = scopeOf(params);
      const limits = await limitsAt(ctx, scope);
      if (!limits) throw notFoundError(`scope: no budget "${scope}"`);
      const period = periods.at(limits.period, limits.timeZone, query.at ?? Date.now());
      const usage = (await ctx.store.budgetUsage({ scope, period: period.key })).items[0] ?? emptyUsage(scope, period.key);
      const left = limits.amount === null ? null : Math.max(0, limits.amount - usage.spent - usage.held);
      return { scope, limits, period: { key: period.key, start: period.start, end: period.end }, usage, left };
    },
  }),
  defineRoute({
    method: 'delete', path: '/budgets/{scope}', summary: 'Remove a budget of an organisation or an account (its usage is kept)', access: 'write', answer: ref('Budget'),
    async handle({ params, res, ctx }) {
      const removed = await ctx.store.deleteBudget(scopeOf(params));
      if (!removed) throw notFoundError(`scope: no budget "${scopeOf(params)}"`);
      await audit(ctx.store, res, 'budget.delete', `budget:${removed.scope}`, removed, null);
      return removed;
    },
  }),
  defineRoute({
    method: 'get', path: '/budget-usage', access: 'read', answer: page('BudgetUsage'),
    summary: 'Usage per scope and period, in scope order: one scope, or every scope under a prefix (a key\'s sessions: session:key:<keyId>/)',
    query: Type.Object({ scope: Optional(queryText), prefix: Optional(queryText), period: Optional(queryText), ...paging }),
    handle: ({ query, ctx }) => ctx.store.budgetUsage(query),
  }),
  defineRoute({
    method: 'get', path: '/accounts/{callerId}/organization', summary: 'The organisation an account belongs to (null: none)', access: 'read', answer: ref('Membership'),
    handle: async ({ params, ctx }) => ({ callerId: params.callerId ?? '', orgId: await ctx.store.getOrganization(params.callerId ?? '') }),
  }),
  defineRoute({
    method: 'put', path: '/accounts/{callerId}/organization', summary: 'Put an account in an organisation (null: in none); its budget is on the path of every key of the account', access: 'write',
    body: Type.Object({ orgId: orNull(Type.String({ minLength: 1, maxLength: 256 })) }, { additionalProperties: false }), answer: ref('Membership'),
    async handle({ params, body, res, ctx }) {
      const callerId = params.callerId ?? '';
      const out = await ctx.store.setOrganization(callerId, body.orgId);
      await audit(ctx.store, res, 'account.organization', `caller:${callerId}`, { orgId: out.before }, { orgId: out.after });
      return { callerId, orgId: out.after };
    },
  }),
  defineRoute({
    method: 'post', path: '/keys/{keyId}/run-keys', summary: 'Mint a run key of a key: its own cap for its life, a lifetime, models within the parent\'s (the secret is returned once)', access: 'write',
    body: runKeyBodySchema, status: 201, answer: ref('NewKey'), answerDescription: 'Created',
    async handle({ params, body, res, ctx }) {
      const parent = await ctx.store.getKey(params.keyId ?? '');
      if (!parent) throw notFoundError(`keyId: ${params.keyId ?? ''}`);
      const unknown = ctx.models && unknownModel(body.models, ctx.models().byId);
      if (unknown) throw new GatewayError('invalid_request_error', unknown);
      const minted = await mintRunKey(ctx.store, parent, body, Date.now(), false);
      await audit(ctx.store, res, 'key.mint_run', `key:${minted.record.keyId}`, null, minted.record);
      return minted;
    },
  }),
];
