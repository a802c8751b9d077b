/** The output items an answer's blocks become, for the JSON answer and the stream alike. */
import { isBlock } from '../../messages/content';
import { callIdOf, newId } from './ids';
import type { ReasoningBlock } from './reasoning';
import type { ResponsesPlan } from './request';
import { CUSTOM_INPUT } from './tools';
import type { CustomToolCallItem, FunctionCallItem, ItemStatus, MessageItem, OutputText, ReasoningItem, WebSearchItem } from './types';

export const outputText = (text: string): OutputText => ({ type: 'output_text', text, annotations: [], logprobs: [] });

export const messageItem = (status: ItemStatus): MessageItem => ({ type: 'message', id: newId('message'), role: 'assistant', status, content: [] });

/**
 * A reasoning item: its summary the thinking's text when the request asked for one; the gateway's
 * encrypted content (authenticated by `plan.seal`) when `include` asked (and in `plan.sealed`, when the plan keeps it).
 */
export function reasoningItem(block: ReasoningBlock, plan: ResponsesPlan, id = newId('reasoning')): ReasoningItem {
  const text = isBlock(block, 'thinking') ? block.thinking : '';
  const item: ReasoningItem = { type: 'reasoning', id, summary: plan.summary && text !== '' ? [{ type: 'summary_text', text }] : [], status: 'completed' };
  const content = plan.encrypted || plan.sealed ? plan.seal.seal(block) : undefined;
  if (content !== undefined) {
    plan.sealed?.set(id, content);
    if (plan.encrypted) item.encrypted_content = content;
  }
  return item;
}

/** The free-form input of a custom tool's call: the string its one property holds (an upstream that sent other JSON: that JSON as it came). */
export function customInputOf(json: string): string {
  try {
    const value = JSON.parse(json) as Record<string, unknown> | null;
    const input = value?.[CUSTOM_INPUT];
    if (typeof input === 'string') return input;
  } catch {
    // not JSON: the text as it came
  }
  return json;
}

/** The call item of a tool_use: a function call (in its namespace), or a custom tool's call; `status` says whether its input is whole. */
export function callItem(toolUseId: string, wireName: string, json: string, plan: ResponsesPlan, status: ItemStatus): FunctionCallItem | CustomToolCallItem {
  const tool = plan.names.restore(wireName);
  const namespace = tool.namespace === undefined ? {} : { namespace: tool.namespace };
  const call_id = callIdOf(toolUseId);
  if (tool.kind === 'custom') return { type: 'custom_tool_call', id: newId('custom_tool_call'), call_id, name: tool.name, ...namespace, input: status === 'completed' ? customInputOf(json) : '', status };
  return { type: 'function_call', id: newId('function_call'), call_id, name: tool.name, ...namespace, arguments: json, status };
}

/** A web search the upstream ran, with its query once its input is whole. */
export function webSearchItem(json: string, status: 'in_progress' | 'completed'): WebSearchItem {
  let query = '';
  try {
    const value = (JSON.parse(json) as { query?: unknown } | null)?.query;
    if (typeof value === 'string') query = value;
  } catch {
    // no query yet
  }
  return { type: 'web_search_call', id: newId('web_search_call'), status, action: { type: 'search', query } };
}
