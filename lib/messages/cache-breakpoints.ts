/** Automatic prompt caching: the gateway's own cache breakpoints on a Messages request that carries none. */
import type { CacheControl, ContentBlock, MessageParam, TextBlock } from './content';
import type { MessagesRequest, Tool } from './request';

/** The breakpoint placed: Anthropic's default lifetime (5 minutes), refreshed by every hit. */
const BREAKPOINT: Readonly<CacheControl> = Object.freeze({ type: 'ephemeral' });

/** Blocks Anthropic takes a breakpoint on (thinking blocks and unknown types are left alone). */
const CACHEABLE: ReadonlySet<string> = new Set(['text', 'image', 'document', 'tool_use', 'tool_result']);

type Marked = { cache_control?: unknown };
const marked = (item: unknown): boolean => typeof item === 'object' && item !== null && (item as Marked).cache_control !== undefined;

/** Whether a list of blocks (or a tool_result's nested content) carries a breakpoint of the caller's. */
function blocksMarked(content: unknown): boolean {
  if (!Array.isArray(content)) return false;
  for (const block of content) {
    if (marked(block)) return true;
    if ((block as { type?: unknown } | null)?.type === 'tool_result' && blocksMarked((block as { content?: unknown }).content)) return true;
  }
  return false;
}

/**
 * Whether the caller placed any `cache_control` of its own: top level, system, tools, or any block
 * (a tool_result's content too). Recent turns are looked at first, where agents put theirs.
 */
export function hasCacheControl(request: MessagesRequest): boolean {
  if (request.cache_control !== undefined || blocksMarked(request.system)) return true;
  const messages = request.messages;
  for (let i = messages.length - 1; i >= 0; i--) if (blocksMarked((messages[i] as MessageParam).content)) return true;
  return Array.isArray(request.tools) && request.tools.some(marked);
}

const cacheable = (block: ContentBlock): boolean =>
  CACHEABLE.has(block.type) && (block.type !== 'text' || ((block as TextBlock).text ?? '').length > 0);

/** A turn with a breakpoint on its last block that takes one (a string content becomes one text block); undefined when none does. */
function markedTurn(message: MessageParam): MessageParam | undefined {
  const content = message.content;
  if (typeof content === 'string') return content.length > 0 ? { ...message, content: [{ type: 'text', text: content, cache_control: BREAKPOINT }] } : undefined;
  for (let i = content.length - 1; i >= 0; i--) {
    const block = content[i] as ContentBlock;
    if (!cacheable(block)) continue;
    const blocks = content.slice();
    blocks[i] = { ...block, cache_control: BREAKPOINT };
    return { ...message, content: blocks };
  }
  return undefined;
}

/** The system prompt with a breakpoint on its last non-empty text block; undefined when it has none. */
function markedSystem(system: MessagesRequest['system']): TextBlock[] | undefined {
  if (typeof system === 'string') return system.length > 0 ? [{ type: 'text', text: system, cache_control: BREAKPOINT }] : undefined;
  if (!Array.isArray(system)) return undefined;
  for (let i = system.length - 1; i >= 0; i--) {
    const block = system[i] as TextBlock;
    if (!cacheable(block)) continue;
    const blocks = system.slice();
    blocks[i] = { ...block, cache_control: BREAKPOINT };
    return blocks;
  }
  return undefined;
}

/**
 * The request with the gateway's cache breakpoints, when `profile.autoCache` is on and the caller
 * placed none of its own (a request with any is returned as it is: Claude Code places its own).
 * At most three, by one rule every turn, so the bytes of a conversation's prefix stay the same
 * from turn to turn and each turn reads what the one before wrote:
 * - the end of the stable prefix: the last system block, or without a system the last tool;
 * - the last block of the last turn (the rolling breakpoint: this turn is written to the cache);
 * - the last block of the user turn before it (the end of what the previous turn wrote, so it is
 *   read back however many blocks the turns between added).
 * Only the parts marked are copied (shallowly); the rest is shared with the request given.
 */
export function withCacheBreakpoints<R extends MessagesRequest>(request: R, profile: { readonly autoCache: boolean }): R {
  if (!profile.autoCache || hasCacheControl(request)) return request;
  const out: R = { ...request };
  const system = markedSystem(request.system);
  if (system) out.system = system;
  else if (Array.isArray(request.tools) && request.tools.length > 0) {
    const tools = request.tools.slice();
    tools[tools.length - 1] = { ...(tools[tools.length - 1] as Tool), cache_control: BREAKPOINT };
    out.tools = tools;
  }
  const messages = request.messages.slice();
  const last = messages.length - 1;
  const latest = last >= 0 ? markedTurn(messages[last] as MessageParam) : undefined;
  if (latest) messages[last] = latest;
  for (let i = last - 1; i >= 0; i--) {
    if ((messages[i] as MessageParam).role !== 'user') continue;
    const previous = markedTurn(messages[i] as MessageParam);
    if (previous) messages[i] = previous;
    break;
  }
  out.messages = messages;
  return out;
}
