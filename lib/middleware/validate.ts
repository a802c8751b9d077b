/** validate(kind): checks a Messages, chat or Rerank body against its model's profile, its schemas compiled once. */
import { GatewayConfigError } from '../config-errors';
import type { RequestHandler } from 'express';
import { allowed, catalogReader, profileOf, V1_PROFILE, type ModelEntry, type ModelProfile, type ModelsOption } from '../catalog';
import { gatewayContext, type GatewayContext } from '../context';
import { GatewayError } from '../errors';
import { compileSchema, describeError } from '../schemas/ajv';
import { messagesFromChat, type ChatRequest } from '../formats/openai-chat';
import { agentCountTokensSchema, agentMessagesSchema, MAX_NESTING, tooDeep } from '../schemas/agent';
import { agentChatSchema, findUnsupportedAgentChat } from '../schemas/agent-chat';
import { chatSchema, findUnsupportedChat } from '../schemas/chat';
import { countTokensSchema, findUnsupported, messagesSchema } from '../schemas/messages';
import { DEFAULT_RERANK_BOUNDS, rerankSchema, type RerankBounds } from '../schemas/rerank';

/** Which body a validate() middleware checks. */
export type BodyKind = 'messages' | 'rerank' | 'chat' | 'count_tokens';

const KINDS: readonly BodyKind[] = ['messages', 'rerank', 'chat', 'count_tokens'];


/** Options of validate(). */
export interface ValidateOptions {
  /** Bounds of rerank bodies. Defaults: DEFAULT_RERANK_BOUNDS. */
  rerank?: RerankBounds;
  /**
   * The catalog, read only when resolveModel() did not run before: the body's model (one the
   * caller may use) gives the profile. Default: none (without resolveModel before, V1 for every body).
   */
  models?: ModelsOption;
}

/** What a V1 refusal adds: the switch an operator turns on for the whole contract. */
const SWITCH = '; an operator accepts it by marking the model agentReady: true';

/**
 * Checks the body against the profile of its model: the one resolveModel() resolved (it runs
 * first), else the one the body names in `models`, else V1's. A refusal is a 400
 * `invalid_request_error` whose message names the JSON path, before anything reaches the
 * upstream. V1's unsupported features (tools, thinking, non-text blocks…; for chat also functions,
 * response_format, n > 1, logprobs) get an explicit message that names the `agentReady` switch; an
 * agent-ready model's body is checked against the agent profile (for chat: tools, tool messages,
 * images, PDFs, reasoning). A chat body is then translated into a Messages body (the rest of the
 * pipeline and every adapter see Messages). Last, the output bound: a chat body without one gets the
 * model's `maxOutputTokens` (DEFAULT_MAX_TOKENS for a model without one); a `max_tokens` over `maxOutputTokens` is
 * refused, or lowered to it where the model says `clampMaxTokens` (noted in the log's `detail`).
 * Records `stream` and the caller's user tag in the context.
 */
export function validate(kind: BodyKind, options: ValidateOptions = {}): RequestHandler {
  if (!KINDS.includes(kind)) throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', `validate: kind must be one of ${KINDS.map((k) => `"${k}"`).join(', ')}.`);
  const bounds = Object.freeze({ ...DEFAULT_RERANK_BOUNDS, ...options.rerank });
  for (const [key, value] of Object.entries(bounds)) {
    if (!Number.isSafeInteger(value) || value <= 0) throw new GatewayConfigError('ERR_MGW_INVALID_INTEGER', `validate: option "rerank.${key}" must be a positive integer.`);
  }
  const schemas = { messages: messagesSchema, chat: chatSchema, count_tokens: countTokensSchema } as const;
  const check = compileSchema<Record<string, unknown>>(kind === 'rerank' ? rerankSchema(bounds) : schemas[kind]);
  const unsupportedIn = kind === 'chat' ? findUnsupportedChat : kind === 'rerank' ? undefined : findUnsupported;
  const agentSchemas = { messages: agentMessagesSchema, chat: agentChatSchema, count_tokens: agentCountTokensSchema } as const;
  const agentCheck = kind === 'rerank' ? undefined : compileSchema<Record<string, unknown>>(agentSchemas[kind]);
  const agentUnsupported = kind === 'chat' ? findUnsupportedAgentChat : undefined;
  const catalogNow = options.models === undefined || kind === 'rerank' ? undefined : catalogReader(options.models);
  /** The model whose profile checks the body: resolveModel()'s, else the body's own (one the caller may use) when `models` was given. */
  const modelOf = (ctx: GatewayContext, body: Record<string, unknown>): Readonly<ModelEntry> | undefined => {
    if (ctx.model || !catalogNow || typeof body.model !== 'string' || !allowed(ctx.caller, body.model)) return ctx.model;
    const found = catalogNow().byId.get(body.model);
    return found?.capability === 'llm' ? found : undefined;
  };
  /** The problem of a body, in words, or undefined: an agent-ready model's profile, or V1's. */
  const problem = (body: Record<string, unknown>, profile: ModelProfile): string | undefined => {
    if (profile.contract === 'agent' && agentCheck) {
      const named = agentUnsupported?.(body);
      if (named) return `${named.path}: ${named.message}`;
      if (!agentCheck(body)) return agentCheck.errors?.[0] ? describeError(agentCheck.errors[0]) : 'body: is invalid';
      const deep = tooDeep(body);
      return deep === undefined ? undefined : `${deep}: nested deeper than ${MAX_NESTING} levels`;
    }
    const unsupported = unsupportedIn?.(body);
    if (unsupported) return `${unsupported.path}: ${unsupported.message}${kind === 'rerank' ? '' : SWITCH}`;
    if (!check(body)) return check.errors?.[0] ? describeError(check.errors[0]) : 'body: is invalid';
    return undefined;
  };
  return function validateMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    const body = req.body as Record<string, unknown>;
    const model = kind === 'rerank' ? undefined : modelOf(ctx, body);
    const refused = problem(body, model ? profileOf(model) : V1_PROFILE);
    if (refused !== undefined) {
      next(new GatewayError('invalid_request_error', refused));
      return;
    }
    ctx.stream = body.stream === true;
    const user = kind === 'rerank' || kind === 'chat' ? body.user : (body.metadata as { user_id?: unknown } | undefined)?.user_id;
    if (typeof user === 'string') ctx.user = user;
    if (kind === 'chat') {
      ctx.includeUsage = (body.stream_options as { include_usage?: boolean } | null | undefined)?.include_usage === true;
      try {
        req.body = messagesFromChat(body as unknown as ChatRequest);
      } catch (err) {
        next(err); // what Messages cannot express (a data URL that is not base64, arguments that are not JSON), named
        return;
      }
    }
    const bounded = kind === 'rerank' ? undefined : boundOutput(req.body as { max_tokens?: unknown }, model, kind === 'chat', ctx);
    next(bounded);
  };
}

/**
 * The output bound of an llm body, once it is valid: a chat body without one gets the model's
 * default (its profile's `defaultMaxTokens`); one over the model's `maxOutputTokens` is refused (the vendor's
 * wording) or, where the model says `clampMaxTokens`, lowered to it and noted in the log's detail,
 * a thinking budget at or over it lowered to one less (what Claude Code itself sends when told
 * the lower bound by CLAUDE_CODE_MAX_OUTPUT_TOKENS).
 */
function boundOutput(body: { max_tokens?: unknown; thinking?: unknown }, model: Readonly<ModelEntry> | undefined, fillIn: boolean, ctx: GatewayContext): GatewayError | undefined {
  const cap = model?.maxOutputTokens;
  const asked = body.max_tokens;
  if (asked === undefined) {
    if (fillIn) body.max_tokens = (model ? profileOf(model) : V1_PROFILE).defaultMaxTokens;
    return undefined;
  }
  if (cap === undefined || typeof asked !== 'number' || asked <= cap) return undefined;
  if (!profileOf(model as Readonly<ModelEntry>).clampMaxTokens) {
    return new GatewayError('invalid_request_error', `max_tokens: ${asked} > ${cap}, which is the maximum allowed number of output tokens for ${(model as Readonly<ModelEntry>).id}`);
  }
  body.max_tokens = cap;
  ctx.detail = `max_tokens ${asked} clamped to ${cap} (the model's maxOutputTokens)`;
  const thinking = body.thinking as { type?: unknown; budget_tokens?: unknown } | null | undefined;
  if (thinking?.type === 'enabled' && typeof thinking.budget_tokens === 'number' && thinking.budget_tokens >= cap) {
    body.thinking = { ...thinking, budget_tokens: cap - 1 };
    ctx.detail += `; thinking.budget_tokens ${thinking.budget_tokens} to ${cap - 1}`;
  }
  return undefined;
}
