/** limits(): per-caller requests per minute, tokens per minute and concurrent requests. */
import type { RequestHandler } from 'express';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { defaultEstimator, type Estimator } from '../billing/estimate';
import { gatewayContext, type GatewayContext } from '../context';
import { GatewayError } from '../errors';
import { limiterPool, type LimitKind, type LimiterBackendOptions } from '../limits/limiters';
import type { Caller, LimitSettings } from '../types';

/** Options of limits(). */
export interface LimitsOptions extends LimiterBackendOptions {
  /** Limits of every caller unless its own `limits` override them. Default: {} (unlimited). */
  defaults?: LimitSettings;
  /** Admission estimate for tpm. Default: defaultEstimator. */
  estimator?: Estimator;
}

const refused = (kind: LimitKind, seconds: number): GatewayError =>
  new GatewayError('rate_limit_error', `Rate limit exceeded (${kind}); retry after ${seconds} s.`, { retryAfter: seconds });

const retrySeconds = (res: RateLimiterRes): number => Math.max(1, Math.ceil(res.msBeforeNext / 1000));

/** A caller's limiters, resolved from its limits and the defaults. */
interface Plan {
  rpm: RateLimiterAbstract | undefined;
  concurrency: RateLimiterAbstract | undefined;
  tpm: RateLimiterAbstract | undefined;
  tpmLimit: number;
}

/** Callers whose plans are remembered (by caller object, the last one seen per id); then it starts afresh. */
const PLAN_CACHE_SIZE = 10_000;

/**
 * Needs authenticate() before it and billingHook() around it (its finalizers give concurrency
 * slots back and correct tpm; without it a slot is held until `concurrencyTtlSec`). Counts tokens at admission from the estimate and corrects
 * the count when the request settles (with the confirmed usage). Exceeded: 429
 * `rate_limit_error` with `retry-after`. A counter backend that fails refuses the request
 * (fails closed) with 500 `api_error`.
 */
export function limits(options: LimitsOptions = {}): RequestHandler {
  const defaults = Object.freeze({ ...options.defaults });
  for (const [key, value] of Object.entries(defaults)) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) throw new TypeError(`limits: option "defaults.${key}" must be a non-negative integer (0 = unlimited).`);
  }
  const limiter = limiterPool(options);
  const estimator = options.estimator ?? defaultEstimator;
  // Callers come back as the same object from the stores (MemoryStore, PostgresStore's key
  // cache): their limiters are looked up once, not rebuilt from their limits on every request.
  const plans = new Map<string, { caller: Caller; plan: Plan }>();
  const planFor = (caller: Caller): Plan => {
    const known = plans.get(caller.id);
    if (known?.caller === caller) return known.plan;
    const merged = { ...defaults, ...caller.limits };
    const plan: Plan = {
      rpm: merged.rpm ? limiter('rpm', merged.rpm) : undefined,
      concurrency: merged.concurrency ? limiter('concurrency', merged.concurrency) : undefined,
      tpm: merged.tpm ? limiter('tpm', merged.tpm) : undefined,
      tpmLimit: merged.tpm ?? 0,
    };
    if (plans.size >= PLAN_CACHE_SIZE) plans.clear();
    plans.set(caller.id, { caller, plan });
    return plan;
  };

  async function admit(ctx: GatewayContext, body: unknown): Promise<void> {
    const id = (ctx.caller as Caller).id;
    const plan = planFor(ctx.caller as Caller);
    const held: Array<() => unknown> = [];
    let stage: LimitKind = 'rpm';
    try {
      if (plan.rpm) await plan.rpm.consume(id, 1);
      stage = 'concurrency';
      const slots = plan.concurrency;
      if (slots) {
        await slots.consume(id, 1);
        held.push(() => slots.reward(id, 1));
      }
      stage = 'tpm';
      const tpm = plan.tpm;
      if (tpm) {
        const estimate = (ctx.estimate ??= estimator(body));
        const tokens = estimate.inputTokens + estimate.outputTokens;
        if (tokens > plan.tpmLimit) throw new GatewayError('rate_limit_error', `Request needs about ${tokens} tokens, more than the limit of ${plan.tpmLimit} tokens per minute.`);
        await tpm.consume(id, tokens);
        ctx.finalizers.push(() => {
          const usage = ctx.usage.snapshot();
          if (usage.provenance !== 'confirmed' && usage.provenance !== 'partial') return undefined;
          const actual = usage.inputTokens + usage.outputTokens + usage.cacheReadInputTokens + usage.cacheCreationInputTokens;
          return actual < tokens ? tpm.reward(id, tokens - actual) : actual > tokens ? tpm.penalty(id, actual - tokens) : undefined;
        });
      }
      ctx.finalizers.push(...held);
    } catch (err) {
      await Promise.all(held.map((undo) => undo()));
      if (err instanceof GatewayError) throw err;
      // A concurrency slot frees when a request ends, not when the window does: retry soon.
      if (err instanceof RateLimiterRes) throw refused(stage, stage === 'concurrency' ? 1 : retrySeconds(err));
      throw new GatewayError('api_error', 'Rate limiting is unavailable; retry later.', { detail: `limits backend: ${String(err)}` });
    }
  }

  return function limitsMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    if (!ctx.caller) {
      next(new Error('model-gateway: limits() needs authenticate() before it.'));
      return;
    }
    admit(ctx, req.body).then(() => next(), next);
  };
}
