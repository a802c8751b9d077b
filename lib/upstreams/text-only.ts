/** A plain-text (V1) model's answer, JSON or stream: text blocks only (thinking left out, still billed); any other block makes it invalid. */
import type { ContentBlock } from '../messages/content';
import type { StreamEvent } from '../messages/events';
import type { MessageResponse } from '../messages/request';
import { invalidAnswer } from '../foundation/answer-errors';
import { ForwardedFrame } from '../formats/anthropic';

/** Blocks a V1 answer leaves out: the model's reasoning, which a text-only client never asked for. */
const DROPPED: ReadonlySet<unknown> = new Set(['thinking', 'redacted_thinking']);

/** Whether a block of `type` is kept (text) or left out (thinking); throws for any other, which makes the answer invalid. */
function kept(type: unknown, upstream: string): boolean {
  if (type === 'text') return true;
  if (DROPPED.has(type)) return false;
  throw invalidAnswer(`upstream ${upstream} answered a plain-text model with a ${JSON.stringify(type)?.slice(0, 60) ?? 'typeless'} block`);
}

/** A V1 Message: its text blocks only (the same object when that is all it has). */
export function textOnlyMessage(message: MessageResponse, upstream: string): MessageResponse {
  let content: ContentBlock[] | undefined;
  message.content.forEach((block, i) => {
    if (!kept((block as { type?: unknown } | null)?.type, upstream)) content ??= message.content.slice(0, i);
    else content?.push(block);
  });
  return content ? { ...message, content } : message;
}

/** The head of a content frame as JSON.stringify writes it, up to its index's digits. */
const head = (type: string): string => `event: ${type}\ndata: {"type":"${type}","index":`;
const HEADS: ReadonlyMap<string, string> = new Map(['content_block_start', 'content_block_delta', 'content_block_stop'].map((t) => [t, head(t)]));

/** A forwarded frame's index and the text after it, read from its head; undefined when the upstream spaced it otherwise. */
function splitAtIndex(item: ForwardedFrame): { index: number; rest: string } | undefined {
  const known = HEADS.get(item.type);
  if (known === undefined || !item.text.startsWith(known)) return undefined;
  const start = known.length;
  let end = start;
  while (end < item.text.length && item.text.charCodeAt(end) >= 48 && item.text.charCodeAt(end) <= 57) end++;
  return end === start ? undefined : { index: Number(item.text.slice(start, end)), rest: item.text.slice(end) };
}

/** A forwarded frame's data as an event (for a frame whose head is not JSON.stringify's). */
const parsed = (item: ForwardedFrame): StreamEvent => JSON.parse(item.text.slice(`event: ${item.type}\ndata: `.length, -2)) as StreamEvent;

type Item = StreamEvent | ForwardedFrame;

/**
 * One V1 stream's filter. It decides at each `content_block_start` (a forwarded one is parsed: one
 * small frame per block); deltas and stops are read only once a block was left out, and then only
 * for their index (a forwarded frame's head, not its JSON), so the blocks kept are numbered 0, 1…
 * without gaps. A stream that never leaves a block out passes through untouched, batch for batch.
 */
class TextOnlyStream {
  /** Upstream block index → the client's (null: left out); made only once a block is left out. */
  private indexes: Map<number, number | null> | undefined;
  private next = 0;

  constructor(private readonly upstream: string) {}

  /** The items of a batch a V1 client gets (`items` itself when nothing changed); throws when the answer is invalid. */
  read(items: readonly Item[]): readonly Item[] {
    let out: Item[] | undefined;
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as Item;
      const shown = this.item(item);
      if (shown !== item && !out) out = items.slice(0, i) as Item[];
      if (out && shown !== undefined) out.push(shown);
    }
    return out ?? items;
  }

  /** The item as the client gets it, or undefined when it is left out. */
  private item(item: Item): Item | undefined {
    if (item.type === 'content_block_start') return this.start(item);
    if ((item.type !== 'content_block_delta' && item.type !== 'content_block_stop') || !this.indexes) return item;
    const at = item instanceof ForwardedFrame ? splitAtIndex(item) : undefined;
    const event = at || !(item instanceof ForwardedFrame) ? undefined : parsed(item);
    const index = at ? at.index : (event ?? (item as StreamEvent)).index;
    const mapped = typeof index === 'number' ? this.indexes.get(index) : undefined;
    if (mapped === null) return undefined;
    return mapped === undefined || mapped === index ? item : renumbered(item, mapped, at?.rest, event);
  }

  private start(item: Item): Item | undefined {
    const event = item instanceof ForwardedFrame ? parsed(item) : item;
    const index = typeof event.index === 'number' ? event.index : this.next;
    if (!kept((event.content_block as { type?: unknown } | undefined)?.type, this.upstream)) {
      (this.indexes ??= new Map()).set(index, null);
      return undefined;
    }
    const mine = this.next++;
    if (mine !== index) this.indexes ??= new Map(); // blocks numbered otherwise than 0, 1…: their deltas follow
    this.indexes?.set(index, mine);
    return mine === index ? item : renumbered(item, mine, undefined, event);
  }
}

/** `item` with its block index set to `index`: a forwarded frame keeps its text but for the digits. */
function renumbered(item: Item, index: number, rest: string | undefined, event?: StreamEvent): Item {
  if (item instanceof ForwardedFrame) {
    if (rest !== undefined) return new ForwardedFrame(item.type, `${HEADS.get(item.type) as string}${index}${rest}`);
    return { ...(event ?? parsed(item)), index };
  }
  return { ...item, index };
}

/** A V1 stream's batches, filtered (see TextOnlyStream). */
export async function* textOnlyStream<T extends Item>(source: AsyncIterable<T | readonly T[]>, upstream: string): AsyncGenerator<readonly T[]> {
  const filter = new TextOnlyStream(upstream);
  // A renumbered forwarded frame may come back as an event object: both are items of every stream that forwards.
  for await (const batch of source) yield filter.read(Array.isArray(batch) ? batch : [batch as T]) as readonly T[];
}
