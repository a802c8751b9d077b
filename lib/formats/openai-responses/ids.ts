/** Ids as the Responses API writes them (a prefix per object type), and call ids ⇄ Anthropic tool_use ids, reversibly. */
import { randomHex } from '../../foundation/random-id';

/** The prefix of each object's id; clients (and OpenAI itself, when a session moves there) check them. */
export const ID_PREFIX = Object.freeze({
  response: 'resp_', message: 'msg_', function_call: 'fc_', custom_tool_call: 'ctc_', reasoning: 'rs_', web_search_call: 'ws_',
} as const);

/** A fresh id of `kind`. */
export function newId(kind: keyof typeof ID_PREFIX): string {
  return ID_PREFIX[kind] + randomHex();
}

/** The response id of a request: the request id's random part behind `resp_`, so a log line and a response name each other. */
export function responseIdOf(requestId: string): string {
  return ID_PREFIX.response + (requestId.startsWith('req_') ? requestId.slice(4) : requestId);
}

/** What Anthropic accepts as a tool_use id. */
const TOOL_USE_ID = /^[A-Za-z0-9_-]{1,200}$/;
/** Marks a call id carried in Anthropic's charset as base64url (itself in that charset). */
const ENCODED = 'cid_';

/**
 * The Anthropic tool_use id for a client's `call_id`: the id itself when Anthropic takes it (every
 * id OpenAI, Anthropic and the gateway make), else `cid_` and its UTF-8 in base64url. An id that
 * already starts with `cid_` is encoded too, so two call ids never share a tool_use id.
 */
export function toolUseIdOf(callId: string): string {
  if (TOOL_USE_ID.test(callId) && !callId.startsWith(ENCODED)) return callId;
  return ENCODED + Buffer.from(callId, 'utf8').toString('base64url');
}

/** The call id for a tool_use id: the inverse of toolUseIdOf (an upstream's own ids come back as they are). */
export function callIdOf(toolUseId: string): string {
  if (!toolUseId.startsWith(ENCODED)) return toolUseId;
  const decoded = Buffer.from(toolUseId.slice(ENCODED.length), 'base64url').toString('utf8');
  return toolUseIdOf(decoded) === toolUseId ? decoded : toolUseId;
}
