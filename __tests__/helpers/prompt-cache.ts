/**
 * Anthropic's prompt caching, simulated for fake upstreams: the prompt is a sequence of blocks (tools, system, then each turn's
 * blocks), each `cache_control` a breakpoint. A request reads the longest prefix a breakpoint (or one of the 20 blocks before
 * it) finds cached, and writes the prefix up to its last breakpoint, each stretch at the lifetime of the breakpoint ending it.
 * Breakpoint markers are not part of a prefix: moving them keeps the cache. Tokens are stand-ins: a block's JSON characters
 * ÷ 4, rounded up. No expiry: a test's turns come seconds apart.
 */
import { createHash } from 'node:crypto';

type Json = Record<string, unknown>;

/** What a request reads and writes, as Anthropic's usage splits the prompt (`input` excludes reads and writes). */
export interface CacheFigures {
  input: number;
  read: number;
  write5m: number;
  write1h: number;
}

/** How many blocks before a breakpoint are looked at for a cached prefix (Anthropic's documented lookback). */
const LOOKBACK = 20;

const withoutMarker = (item: unknown): unknown => {
  if (typeof item !== 'object' || item === null || !('cache_control' in item)) return item;
  const { cache_control: _marker, ...rest } = item as Json;
  return rest;
};

/** A breakpoint's lifetime, or undefined for a block that is none. */
const ttlOf = (item: unknown): '5m' | '1h' | undefined => {
  const marker = (item as Json).cache_control as Json | undefined;
  return marker === undefined ? undefined : marker.ttl === '1h' ? '1h' : '5m';
};

/** The prompt as blocks, in Anthropic's prefix order (tools, system, messages), each with its breakpoint's lifetime. */
function blocksOf(body: Json): Array<{ text: string; ttl: '5m' | '1h' | undefined }> {
  const out: Array<{ text: string; ttl: '5m' | '1h' | undefined }> = [];
  const add = (where: string, item: unknown): void => void out.push({ text: JSON.stringify([where, withoutMarker(item)]), ttl: ttlOf(item) });
  for (const tool of (body.tools as unknown[] | undefined) ?? []) add('tool', tool);
  const system = body.system;
  for (const block of typeof system === 'string' ? [{ type: 'text', text: system }] : ((system as unknown[] | undefined) ?? [])) add('system', block);
  for (const message of (body.messages as Json[] | undefined) ?? []) {
    const content = message.content;
    for (const block of typeof content === 'string' ? [{ type: 'text', text: content }] : (content as unknown[])) add(String(message.role), block);
  }
  return out;
}

/** One upstream's cache: `use(body)` answers a request's figures and records what it wrote. */
export class PromptCache {
  private readonly cached = new Set<string>();

  use(body: Json): CacheFigures {
    const blocks = blocksOf(body);
    // A prefix is named by the hash of its blocks; its tokens are the blocks' summed stand-in counts.
    const keys: string[] = [];
    const tokens: number[] = [];
    let hash = '';
    let sum = 0;
    for (const block of blocks) {
      hash = createHash('sha256').update(hash).update(block.text).digest('hex');
      sum += Math.ceil(block.text.length / 4);
      keys.push(hash);
      tokens.push(sum);
    }
    const breakpoints = blocks.flatMap((b, i) => (b.ttl ? [i] : []));
    let read = -1;
    for (const b of breakpoints) for (let i = b; i >= Math.max(0, b - LOOKBACK + 1); i--) if (i > read && this.cached.has(keys[i] as string)) read = i;
    const figures: CacheFigures = { input: sum, read: read >= 0 ? (tokens[read] as number) : 0, write5m: 0, write1h: 0 };
    let end = read;
    for (const b of breakpoints) {
      this.cached.add(keys[b] as string);
      if (b <= end) continue;
      const written = (tokens[b] as number) - (end >= 0 ? (tokens[end] as number) : 0);
      if (blocks[b]?.ttl === '1h') figures.write1h += written;
      else figures.write5m += written;
      end = b;
    }
    figures.input = sum - figures.read - figures.write5m - figures.write1h;
    return figures;
  }
}
