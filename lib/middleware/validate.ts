/** validate(kind): checks a Messages or Rerank body against its schema, compiled once. */
import type { RequestHandler } from 'express';
import { catalogReader, type ModelsOption } from '../catalog';
import { gatewayContext } from '../context';
import { GatewayError } from '../errors';
import { compileSchema, describeError } from '../schemas/ajv';
import { messagesFromChat, type ChatRequest } from '../chat/translate';
import { agentCountTokensSchema, agentMessagesSchema, MAX_NESTING, tooDeep } from '../schemas/agent';
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
   * The catalog: a Messages or count_tokens body naming an `agentReady` model is checked against
   * the agent profile (the whole contract) instead of V1's. Default: none (V1 for every body).
   */
  models?: ModelsOption;
}

/** What a V1 refusal adds: the switch an operator turns on for the whole contract. */
const SWITCH = '; an operator accepts it by marking the model agentReady: true';

/**
 * Refuses an invalid body with 400 `invalid_request_error` whose message names the JSON path,
 * before anything reaches the upstream. V1's unsupported features (tools, thinking, non-text
 * blocks…; for chat also functions, response_format, n > 1, logprobs) get an explicit message
 * that names the `agentReady` switch; a body for an agent-ready model (`models` given) is checked
 * against the agent profile instead.
 * Records `stream` and the caller's user tag in the context. A chat body is then translated
 * into a Messages body (the rest of the pipeline and every adapter see Messages).
 */
export function validate(kind: BodyKind, options: ValidateOptions = {}): RequestHandler {
  if (!KINDS.includes(kind)) throw new TypeError(`validate: kind must be one of ${KINDS.map((k) => `"${k}"`).join(', ')}.`);
  const bounds = Object.freeze({ ...DEFAULT_RERANK_BOUNDS, ...options.rerank });
  for (const [key, value] of Object.entries(bounds)) {
    if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`validate: option "rerank.${key}" must be a positive integer.`);
  }
  const schemas = { messages: messagesSchema, chat: chatSchema, count_tokens: countTokensSchema } as const;
  const check = compileSchema<Record<string, unknown>>(kind === 'rerank' ? rerankSchema(bounds) : schemas[kind]);
  const unsupportedIn = kind === 'chat' ? findUnsupportedChat : kind === 'rerank' ? undefined : findUnsupported;
  const agentCheck = kind === 'messages' || kind === 'count_tokens' ? compileSchema<Record<string, unknown>>(kind === 'messages' ? agentMessagesSchema : agentCountTokensSchema) : undefined;
  const catalogNow = options.models === undefined || !agentCheck ? undefined : catalogReader(options.models);
  /** The problem of a body, in words, or undefined: an agent-ready model's profile, or V1's. */
  const problem = (body: Record<string, unknown>): string | undefined => {
    const model = typeof body.model === 'string' ? catalogNow?.().byId.get(body.model) : undefined;
    if (model?.agentReady === true && agentCheck) {
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
    const refused = problem(body);
    if (refused !== undefined) {
      next(new GatewayError('invalid_request_error', refused));
      return;
    }
    ctx.stream = body.stream === true;
    const user = kind === 'rerank' || kind === 'chat' ? body.user : (body.metadata as { user_id?: unknown } | undefined)?.user_id;
    if (typeof user === 'string') ctx.user = user;
    if (kind === 'chat') {
      ctx.includeUsage = (body.stream_options as { include_usage?: boolean } | null | undefined)?.include_usage === true;
      req.body = messagesFromChat(body as unknown as ChatRequest);
    }
    next();
  };
}
