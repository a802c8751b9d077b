/**
 * Input items → the turns of a Messages conversation. Leading system and developer messages go to
 * the system prompt; later ones become user text in their place (the prefix a cache reads stays
 * put). Items of one side join one turn: an assistant's reasoning first (Anthropic wants thinking
 * before the calls), then its text and calls in order; tool outputs first in the user turn after.
 */
import type { UpstreamFormat } from '../../billing/figures';
import type { ContentBlock, MessageParam, ToolResultBlock, ToolUseBlock } from '../../messages/content';
import { refused } from './errors';
import { toolUseIdOf } from './ids';
import { blocksOf, promptTextOf } from './parts';
import { reasoningBlockOf, type ReasoningSeal } from './reasoning';
import { CUSTOM_INPUT, type PlacedTool, type ToolNames } from './tools';
import type { InputItem, InputPart } from './types';

/** Builds turns, merging blocks of one role; each turn's leading blocks (thinking, tool results) first. */
class Turns {
  readonly messages: MessageParam[] = [];
  private role: 'user' | 'assistant' | undefined;
  private lead: ContentBlock[] = [];
  private rest: ContentBlock[] = [];

  add(role: 'user' | 'assistant', blocks: readonly ContentBlock[], leading = false): void {
    if (blocks.length === 0) return;
    if (role !== this.role) this.flush();
    this.role = role;
    (leading ? this.lead : this.rest).push(...blocks);
  }

  /** The index the turn of `role`'s next blocks gets (the open turn's, or the one after it). */
  at(role: 'user' | 'assistant'): number {
    return this.role === undefined || this.role === role ? this.messages.length : this.messages.length + 1;
  }

  flush(): void {
    if (this.role && this.lead.length + this.rest.length > 0) this.messages.push({ role: this.role, content: [...this.lead, ...this.rest] });
    this.lead = [];
    this.rest = [];
  }
}

/** What the turns are built with: the request's tool names and upstream format, where drops are recorded, and whether a tool output needs its call. */
export interface InputContext {
  names: ToolNames;
  format: UpstreamFormat | undefined;
  dropped: string[];
  /** A tool output whose call_id no call before it has is refused (the upstream would refuse a body the client never sent). Default: false. */
  outputsNeedCalls?: boolean;
  /** The key the gateway's reasoning content is authenticated with. */
  seal: ReasoningSeal;
  /** Filled here: each reasoning item whose gateway content did not authenticate, and the turn its thinking would have gone to. */
  unauthenticated: Array<{ path: string; turn: number }>;
}

/** The items of `input` (a string is one user message). */
export const itemsOf = (input: string | InputItem[]): InputItem[] => (typeof input === 'string' ? [{ role: 'user', content: input }] : input);

/** The tools of the request's additional_tools items (Codex's code mode sends its tools there), hoisted to the tool list. */
export function hoistedTools(items: readonly InputItem[]): PlacedTool[] {
  const out: PlacedTool[] = [];
  items.forEach((item, i) => {
    if (item.type === 'additional_tools') (item.tools ?? []).forEach((tool, j) => out.push({ tool, path: `input.${i}.tools.${j}` }));
  });
  return out;
}

function argumentsOf(text: string, path: string): unknown {
  let input: unknown;
  try {
    input = text === '' ? {} : JSON.parse(text);
  } catch {
    input = undefined;
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw refused(path, 'must be a JSON object');
  return input;
}

function toolResult(item: InputItem, path: string, format: UpstreamFormat | undefined): ToolResultBlock {
  const output = item.output;
  const content = typeof output === 'string' ? output : blocksOf(output as InputPart[] | undefined, `${path}.output`, format);
  return { type: 'tool_result', tool_use_id: toolUseIdOf(String(item.call_id)), content };
}

function toolUse(item: InputItem, path: string, names: ToolNames): ToolUseBlock {
  const name = names.wire(String(item.name), typeof item.namespace === 'string' ? item.namespace : undefined);
  const input = item.type === 'custom_tool_call' ? { [CUSTOM_INPUT]: String(item.input ?? '') } : argumentsOf(String(item.arguments ?? ''), `${path}.arguments`);
  return { type: 'tool_use', id: toolUseIdOf(String(item.call_id)), name, input };
}

/** The item an item_reference names, found among the request's own items (nothing is stored between requests). */
function referenced(items: readonly InputItem[], item: InputItem, path: string): InputItem {
  const found = items.find((other) => other !== item && other.type !== 'item_reference' && typeof other.id === 'string' && other.id === item.id);
  if (!found) throw refused(`${path}.id`, 'names no item of this request (this gateway stores no items between requests)');
  return found;
}

/**
 * The system texts and turns of the input. An item the gateway cannot send on (a built-in tool's
 * call, a compaction) is dropped and recorded; what the content model cannot carry is refused, naming its path.
 */
export function conversationOf(items: readonly InputItem[], context: InputContext): { system: string[]; messages: MessageParam[] } {
  const { names, format, dropped } = context;
  const system: string[] = [];
  const turns = new Turns();
  const calls = new Set<string>();
  let leading = true;
  items.forEach((given, i) => {
    const path = `input.${i}`;
    const item = given.type === 'item_reference' ? referenced(items, given, path) : given;
    const type = item.type ?? 'message';
    if (type === 'additional_tools') return;
    if (type === 'message' && (item.role === 'system' || item.role === 'developer')) {
      if (leading) return void system.push(promptTextOf(item.content as InputPart[] | string | null, `${path}.content`));
      return turns.add('user', blocksOf(item.content as InputPart[] | string | null, `${path}.content`, format));
    }
    leading = false;
    switch (type) {
      case 'message':
        return turns.add(item.role === 'assistant' ? 'assistant' : 'user', blocksOf(item.content as InputPart[] | string | null, `${path}.content`, format));
      case 'function_call':
      case 'custom_tool_call':
        calls.add(String(item.call_id));
        return turns.add('assistant', [toolUse(item, path, names)]);
      case 'function_call_output':
      case 'custom_tool_call_output':
        if (context.outputsNeedCalls === true && !calls.has(String(item.call_id))) {
          throw refused(`${path}.call_id`, 'answers no function_call or custom_tool_call before it (a tool output follows the call it answers, in the input or the history it chains from)');
        }
        return turns.add('user', [toolResult(item, path, format)], true);
      case 'reasoning': {
        const { block, unauthenticated } = reasoningBlockOf(item, path, dropped, context.seal);
        if (unauthenticated) context.unauthenticated.push({ path: `${path}.encrypted_content`, turn: turns.at('assistant') });
        return turns.add('assistant', block ? [block] : [], true);
      }
      default:
        dropped.push(`${path} (${type})`);
    }
  });
  turns.flush();
  return { system, messages: turns.messages };
}
