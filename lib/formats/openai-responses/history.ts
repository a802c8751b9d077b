/**
 * Stored conversation state in the API's item shapes: a request's input as the items
 * `GET /v1/responses/{id}/input_items` lists, a stored response's history (its input, then its
 * output) for a request chained from it, and what a reader is shown of reasoning content.
 */
import { itemsOf } from './input';
import type { InputItem, InputPart, OutputItem, ResponseObject } from './types';

type Item = Record<string, unknown>;

/** What `include` asks for to be shown reasoning items' encrypted content. */
export const ENCRYPTED_INCLUDE = 'reasoning.encrypted_content';

/** A message's string content as its one part: `output_text` for an assistant, `input_text` for the other roles. */
function partsOf(role: unknown, text: string): InputPart[] {
  return role === 'assistant' ? [{ type: 'output_text', text, annotations: [] }] : [{ type: 'input_text', text }];
}

/** One item in the API's shape: a message gets `type: "message"` and its string content as a part; others are kept as sent. */
function apiItem(item: InputItem): Item {
  if ((item.type ?? 'message') !== 'message') return { ...item };
  const { content, ...rest } = item;
  return { ...rest, type: 'message', content: typeof content === 'string' ? partsOf(item.role, content) : content };
}

/**
 * A request's input as the API's items: a string is one user message, short-form messages become
 * message items, and an `item_reference` becomes a copy of the item it names (`before` holds the
 * items sent ahead of the request's own: a chain's history). The translation reads both forms
 * alike, so a chained request sends the upstream the bytes the earlier one sent.
 */
export function apiItemsOf(input: string | InputItem[], before: readonly Item[] = []): Item[] {
  const own = itemsOf(input).map(apiItem);
  const all = [...before, ...own];
  return own.map((item) => {
    if (item.type !== 'item_reference') return item;
    const found = all.find((other) => other !== item && other.type !== 'item_reference' && typeof other.id === 'string' && other.id === item.id);
    return found ? { ...found } : item;
  });
}

/** A stored response's history, the items a request chained from it starts with: its input items, then its output. */
export function historyOf(stored: { inputItems: readonly Item[]; response: Item }): Item[] {
  const output = Array.isArray(stored.response.output) ? (stored.response.output as Item[]) : [];
  return [...stored.inputItems, ...output];
}

/** The output as kept: each reasoning item with the gateway's encrypted content (`sealed`, by item id), whatever `include` asked. */
export function sealedOutput(output: readonly OutputItem[], sealed: ReadonlyMap<string, string>): OutputItem[] {
  return output.map((item) => {
    const content = item.type === 'reasoning' ? sealed.get(item.id) : undefined;
    return content === undefined || item.type !== 'reasoning' ? item : { ...item, encrypted_content: content };
  });
}

/** An item as a reader sees it: a reasoning item's encrypted content only when `include` asked for it. */
export function shownItem<T extends Item>(item: T, encrypted: boolean): T {
  if (encrypted || item.type !== 'reasoning' || !('encrypted_content' in item)) return item;
  const { encrypted_content: _hidden, ...rest } = item;
  return rest as T;
}

/** A stored response object as a reader sees it (see shownItem). */
export function shownResponse(response: ResponseObject | Item, encrypted: boolean): Item {
  const output = response.output;
  return Array.isArray(output) ? { ...response, output: (output as Item[]).map((item) => shownItem(item, encrypted)) } : response;
}
