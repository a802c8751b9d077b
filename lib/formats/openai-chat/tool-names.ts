/** Tool names over OpenAI's 64-character limit, shortened reversibly: the answer's calls get the caller's names back. */
import { createHash } from 'node:crypto';
import type { Tool } from '../../messages/request';

/** The longest function name OpenAI-format upstreams take. */
export const MAX_TOOL_NAME = 64;

/**
 * The name sent upstream: a name of at most 64 characters as it is; a longer one as its first 55
 * characters, `_` and 8 hex characters of its SHA-256 (two long names sharing a prefix differ).
 */
export function shortToolName(name: string): string {
  if (name.length <= MAX_TOOL_NAME) return name;
  return `${name.slice(0, MAX_TOOL_NAME - 9)}_${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}

/** Gives an upstream's name for a call back as the caller's. */
export type RestoreName = (name: string) => string;

const asIs: RestoreName = (name) => name;

/** The restorer for a request's tools: the identity unless some name was shortened. */
export function nameRestorer(tools: readonly Tool[] | undefined): RestoreName {
  let long: Map<string, string> | undefined;
  for (const tool of tools ?? []) {
    if (typeof tool.name === 'string' && tool.name.length > MAX_TOOL_NAME) (long ??= new Map()).set(shortToolName(tool.name), tool.name);
  }
  if (!long) return asIs;
  const names = long;
  return (name) => names.get(name) ?? name;
}
