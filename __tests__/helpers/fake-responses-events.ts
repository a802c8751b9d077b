/** The OpenAI Responses API as data for the fakes: output items, usage, the Response object, and the SSE events that stream a
 * response in the grammar's exact order (typed by the `openai` SDK's own Responses types). */
import type {
  Response, ResponseCustomToolCall, ResponseFunctionToolCall, ResponseOutputItem, ResponseOutputMessage, ResponseReasoningItem, ResponseStreamEvent, ResponseUsage,
} from 'openai/resources/responses/responses';
import { pieces } from './fake-agent-server';

/** A Response as sent on the wire (`output_text` is the SDK's own convenience, not a wire field; `store` is echoed). */
export type WireResponse = Omit<Response, 'output_text'> & { store?: boolean };

/** Usage as OpenAI counts it: `input` is the whole prompt, `cached` and `cacheWrite` parts of it. */
export function responsesUsage(u: { input: number; cached: number; cacheWrite: number; output: number; reasoning: number }): ResponseUsage {
  return {
    input_tokens: u.input, input_tokens_details: { cached_tokens: u.cached, cache_write_tokens: u.cacheWrite },
    output_tokens: u.output, output_tokens_details: { reasoning_tokens: u.reasoning }, total_tokens: u.input + u.output,
  };
}

export const message = (text: string, id = 'msg_fake_1'): ResponseOutputMessage => ({
  type: 'message', id, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
});

export const functionCall = (name: string, args: Record<string, unknown>, callId = 'call_fake_1', id = 'fc_fake_1'): ResponseFunctionToolCall => ({
  type: 'function_call', id, call_id: callId, name, arguments: JSON.stringify(args), status: 'completed',
});

export const customToolCall = (name: string, input: string, callId = 'call_fake_custom_1', id = 'ctc_fake_1'): ResponseCustomToolCall => ({
  type: 'custom_tool_call', id, call_id: callId, name, input,
});

export const reasoning = (summary: string[], encrypted: string, id = 'rs_fake_1'): ResponseReasoningItem => ({
  type: 'reasoning', id, summary: summary.map((text) => ({ type: 'summary_text', text })), encrypted_content: encrypted,
});

/** The Response object; `output` and `usage` are filled for a terminal status. */
export function responseObject(id: string, model: string, status: 'in_progress' | 'completed' | 'incomplete', output: ResponseOutputItem[], usage: ResponseUsage | null): WireResponse {
  return {
    id, object: 'response', created_at: 1_767_225_600, status, model, output,
    error: null, incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null, instructions: null, metadata: {},
    parallel_tool_calls: true, temperature: null, top_p: null, tool_choice: 'auto', tools: [], store: false,
    ...(status === 'in_progress' ? {} : { completed_at: 1_767_225_601 }), ...(usage === null ? {} : { usage }),
  };
}

/** An event before its sequence number is set: each member of the SDK's union, checked as such, its Response as on the wire. */
type Wire<E> = E extends { response: Response } ? Omit<E, 'sequence_number' | 'response'> & { response: WireResponse } : Omit<E, 'sequence_number'>;
type Draft = ResponseStreamEvent extends infer E ? (E extends ResponseStreamEvent ? Wire<E> : never) : never;
/** A stream event as sent. */
export type WireEvent = Draft & { sequence_number: number };

/** The events of one output item, from `output_item.added` (the item still empty, in progress) to `output_item.done`. */
function itemEvents(item: ResponseOutputItem, output_index: number, fragment: number): Draft[] {
  const at = { item_id: (item as { id: string }).id, output_index };
  const events: Draft[] = [];
  if (item.type === 'message') {
    events.push({ type: 'response.output_item.added', output_index, item: { ...item, status: 'in_progress', content: [] } });
    item.content.forEach((part, content_index) => {
      if (part.type !== 'output_text') throw new Error('fake: only output_text parts are scripted');
      events.push({ type: 'response.content_part.added', ...at, content_index, part: { ...part, text: '' } });
      for (const delta of pieces(part.text, fragment)) events.push({ type: 'response.output_text.delta', ...at, content_index, delta, logprobs: [] });
      events.push({ type: 'response.output_text.done', ...at, content_index, text: part.text, logprobs: [] });
      events.push({ type: 'response.content_part.done', ...at, content_index, part });
    });
  } else if (item.type === 'function_call') {
    events.push({ type: 'response.output_item.added', output_index, item: { ...item, status: 'in_progress', arguments: '' } });
    for (const delta of pieces(item.arguments, fragment)) events.push({ type: 'response.function_call_arguments.delta', ...at, delta });
    events.push({ type: 'response.function_call_arguments.done', ...at, name: item.name, arguments: item.arguments });
  } else if (item.type === 'custom_tool_call') {
    events.push({ type: 'response.output_item.added', output_index, item: { ...item, input: '' } });
    for (const delta of pieces(item.input, fragment)) events.push({ type: 'response.custom_tool_call_input.delta', ...at, delta });
    events.push({ type: 'response.custom_tool_call_input.done', ...at, input: item.input });
  } else if (item.type === 'reasoning') {
    events.push({ type: 'response.output_item.added', output_index, item: { ...item, summary: [], encrypted_content: null, status: 'in_progress' } });
    item.summary.forEach((part, summary_index) => {
      events.push({ type: 'response.reasoning_summary_part.added', ...at, summary_index, part: { type: 'summary_text', text: '' } });
      for (const delta of pieces(part.text, fragment)) events.push({ type: 'response.reasoning_summary_text.delta', ...at, summary_index, delta });
      events.push({ type: 'response.reasoning_summary_text.done', ...at, summary_index, text: part.text });
      events.push({ type: 'response.reasoning_summary_part.done', ...at, summary_index, part });
    });
  } else {
    throw new Error(`fake: output items of type ${item.type} are not scripted`);
  }
  events.push({ type: 'response.output_item.done', output_index, item });
  return events;
}

/** The whole stream of a response: created, in_progress, each item, then the terminal event carrying output and usage. Each
 * event carries its `sequence_number`; the SSE `event:` name equals `type`. */
export function responseEvents(response: WireResponse, fragment = 6): WireEvent[] {
  const opening = responseObject(response.id, response.model, 'in_progress', [], null);
  const drafts: Draft[] = [
    { type: 'response.created', response: opening },
    { type: 'response.in_progress', response: opening },
    ...response.output.flatMap((item, i) => itemEvents(item, i, fragment)),
    response.status === 'incomplete' ? { type: 'response.incomplete', response } : { type: 'response.completed', response },
  ];
  return drafts.map((d, sequence_number) => ({ ...d, sequence_number }));
}
