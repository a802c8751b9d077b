/** The shapes of budgets, written once as JSON Schema (the admin API, the stores and the request path read them): caps per period, session and subagent templates, the run-key grant. */
import { Type, type Static } from '@sinclair/typebox';
import { enumOf, orNull } from './shapes';

/** A budget's period: calendar-aligned in its time zone (a week starts on Monday), or the whole life of the scope. */
export const BUDGET_PERIODS = ['day', 'week', 'month', 'total'] as const;

/** A budget's period. */
export type BudgetPeriod = typeof BUDGET_PERIODS[number];

/** The kinds of scope a budget sits on, widest first: an organisation above accounts, an account, a key, a run key, a client session, a subagent. */
export const SCOPE_KINDS = ['org', 'account', 'key', 'run', 'session', 'subagent'] as const;

/** A kind of scope. */
export type ScopeKind = typeof SCOPE_KINDS[number];

/** A cap: a whole number of minor units, requests or tokens per period; null: none on that dimension. */
const cap = (description: string) => orNull(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description }));

/** The caps of one scope for one period (every one null: the scope counts but refuses nothing). */
export const budgetCapSchema = Type.Object({
  amount: cap('Money per period, in integer minor units'),
  period: enumOf(BUDGET_PERIODS),
  timeZone: Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone the periods are calendar-aligned in, e.g. "Europe/Paris"' }),
  requests: cap('Requests per period'),
  tokens: cap('Tokens per period (input of every kind plus output)'),
}, { additionalProperties: false });

/** The caps of one scope for one period. */
export type BudgetCap = Static<typeof budgetCapSchema>;

/** A budget: its own caps, and optionally the caps of each session and each subagent whose requests pass through it. */
export const budgetLimitsSchema = Type.Object({
  ...budgetCapSchema.properties,
  perSession: Type.Union([budgetCapSchema, Type.Null()], { description: 'Each client session on this scope at most this' }),
  perSubagent: Type.Union([budgetCapSchema, Type.Null()], { description: 'Each subagent (per session) on this scope at most this' }),
}, { additionalProperties: false });

/** A budget's caps and its session and subagent templates. */
export type BudgetLimits = Static<typeof budgetLimitsSchema>;

/** A stored budget of an organisation or an account (a key's budget is on its record). */
export const budgetSchema = Type.Object({
  scope: Type.String({ pattern: '^(org|account):.+$', description: '"org:<orgId>" or "account:<callerId>"' }),
  limits: budgetLimitsSchema,
  updatedAt: Type.Integer({ description: 'Epoch ms' }),
}, { additionalProperties: false });

/** A stored budget of an organisation or an account. */
export type Budget = Static<typeof budgetSchema>;

/** What a key may mint: run keys with a cap and a lifetime at most these. */
export const runKeyGrantSchema = Type.Object({
  maxAmount: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Largest cap of a run key, in minor units' }),
  maxTtlSeconds: Type.Integer({ minimum: 1, maximum: 31_536_000, description: 'Longest lifetime of a run key' }),
}, { additionalProperties: false });

/** What a key may mint. */
export type RunKeyGrant = Static<typeof runKeyGrantSchema>;

/** Whether an IANA time zone name is one this runtime knows (Intl). */
export function knownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The first time zone of a budget's caps this runtime does not know, as a field path and message; undefined when all are known. */
export function timeZoneProblem(limits: BudgetLimits, at = 'limits'): string | undefined {
  const caps: Array<[string, BudgetCap | null]> = [[at, limits], [`${at}.perSession`, limits.perSession], [`${at}.perSubagent`, limits.perSubagent]];
  for (const [path, c] of caps) {
    if (c && !knownTimeZone(c.timeZone)) return `${path}.timeZone: "${c.timeZone}" is not an IANA time zone (e.g. "UTC", "Europe/Paris")`;
  }
  return undefined;
}

/** What a run key is minted with: its cap (a total, in minor units), its lifetime, and optionally its models (within its parent's), request and token caps, metadata. */
export const runKeyBodySchema = Type.Object({
  amount: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The run key\'s cap, in minor units, for its whole life' }),
  ttlSeconds: Type.Integer({ minimum: 1, maximum: 31_536_000, description: 'Its lifetime, in seconds (never past its parent\'s end)' }),
  models: Type.Optional(Type.Union([Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { minItems: 1, maxItems: 1000 }), Type.Null()], { description: 'Within the parent\'s models; default: the parent\'s' })),
  requests: Type.Optional(cap('Requests over its life')),
  tokens: Type.Optional(cap('Tokens over its life')),
  metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.String({ maxLength: 1000 }), { maxProperties: 50 }), Type.Null()])),
}, { additionalProperties: false });

/** What a run key is minted with. */
export type RunKeyBody = Static<typeof runKeyBodySchema>;
