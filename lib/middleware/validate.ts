/** validate(kind): checks a Messages, chat or Rerank body against its model's profile, its schemas compiled once. */
import { GatewayConfigError } from '../foundation/config-errors';
import type { RequestHandler } from 'express';
import { profileOf, V1_PROFILE, type ModelProfile, type ModelsOption } from '../catalog/catalog';
import { gatewayContext } from '../context';
import { GatewayError } from '../foundation/errors';
import { compileSchema, describeError } from '../schemas/ajv';
import { agentCountTokensSchema, agentMessagesSchema, MAX_NESTING, tooDeep } from '../schemas/agent';
import { agentChatSchema, findUnsupportedAgentChat } from '../schemas/agent-chat';
import { chatSchema, findUnsupportedChat } from '../schemas/chat';
import { countTokensSchema, findUnsupported, messagesSchema } from '../schemas/messages';
import { DEFAULT_RERANK_BOUNDS, rerankSchema, type RerankBounds } from '../schemas/rerank';
import { translateChat } from './chat-to-messages';
import { bodyModel, boundOutput } from './output-bound';

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
  /**
   * A chat body only: translate it into the Messages body here, as chatToMessages() does (true), or
   * leave that to a chatToMessages() after it (false: what the router composes). Default: true.
   */
  translate?: boolean;
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
 * images, PDFs, reasoning). Records `stream` and the caller's user tag in the context (for chat,
 * `includeUsage` too). A chat body is then translated as chatToMessages() translates it, unless
 * `translate: false` leaves that stage to a chatToMessages() after it: the rest of the pipeline and
 * every adapter see Messages. Last, on a Messages body, the output bound (lib/middleware/output-bound.ts):
 * a `max_tokens` over the model's `maxOutputTokens` is refused, or lowered to it where the model says
 * `clampMaxTokens` (noted in the log's `detail`); a chat body without one gets the model's default.
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
  /** The model whose profile checks the body: resolveModel()'s, else the body's own (one the caller may use) when `models` was given. */
  const modelOf = bodyModel(kind === 'rerank' ? undefined : options.models);
  const translate = kind === 'chat' && options.translate !== false;
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
      // The translation (and then the output bound of its Messages body) is chatToMessages()'s stage.
      next(translate ? translateChat(req, ctx, model) : undefined);
      return;
    }
    next(kind === 'rerank' ? undefined : boundOutput(body as { max_tokens?: unknown }, model, false, ctx));
  };
}
