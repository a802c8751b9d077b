/**
 * The client session and subagent a request belongs to, read from what clients already send: no
 * client change. A session is named by the first of, in order: `x-session-id` (any client, on
 * purpose), `x-claude-code-session-id` (Claude Code), `session-id` or `session_id` (Codex), the
 * body's `prompt_cache_key` (Codex and OpenAI clients), `safety_identifier`, then `user` (OpenAI
 * clients' end-user tags: a "session" per end user). A subagent by `x-agent-id` or
 * `x-claude-code-agent-id` (Claude Code's subagents).
 */
import { createHash } from 'node:crypto';

/** Where a session id was read. */
export const SESSION_SOURCES = ['x-session-id', 'x-claude-code-session-id', 'session-id', 'session_id', 'prompt_cache_key', 'safety_identifier', 'user'] as const;

/** Where a session id was read. */
export type SessionSource = typeof SESSION_SOURCES[number];

/** A request's session and subagent, as far as its client named them. */
export interface SessionRef {
  id: string;
  source: SessionSource;
}

/** Longest id kept as sent; a longer one (or one with spaces or control characters) is named by its digest. */
const MAX_ID = 128;
const PLAIN = /^[\x21-\x7e]+$/;

/** An id as a scope may carry it: as sent when short and printable, else `sha256:` and 32 hex digits of its digest. */
export function normaliseId(value: string): string {
  const id = value.trim();
  if (id.length > 0 && id.length <= MAX_ID && PLAIN.test(id)) return id;
  return `sha256:${createHash('sha256').update(value).digest('hex').slice(0, 32)}`;
}

type Headers = Readonly<Record<string, string | string[] | undefined>>;

const header = (headers: Headers, name: string): string | undefined => {
  const value = headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return typeof text === 'string' && text.trim().length > 0 ? text : undefined;
};

const HEADER_SOURCES = ['x-session-id', 'x-claude-code-session-id', 'session-id', 'session_id'] as const;
const BODY_SOURCES = ['prompt_cache_key', 'safety_identifier', 'user'] as const;

/** The session a request names (headers first, then `body`: the client's own body, before any translation), or undefined. */
export function sessionOf(headers: Headers, body: unknown): SessionRef | undefined {
  for (const name of HEADER_SOURCES) {
    const value = header(headers, name);
    if (value !== undefined) return { id: normaliseId(value), source: name };
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const fields = body as Record<string, unknown>;
  for (const name of BODY_SOURCES) {
    const value = fields[name];
    if (typeof value === 'string' && value.trim().length > 0) return { id: normaliseId(value), source: name };
  }
  return undefined;
}

/** The subagent a request names, or undefined. */
export function agentOf(headers: Headers): string | undefined {
  const value = header(headers, 'x-agent-id') ?? header(headers, 'x-claude-code-agent-id');
  return value === undefined ? undefined : normaliseId(value);
}
