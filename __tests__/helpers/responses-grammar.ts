/**
 * The Responses event grammar Codex and the openai SDK rely on, as a checker that lists every
 * violation (each one a bug seen in a peer: responses-api reference §4 and pitfall 2).
 */
import { parseFrames, type Frame } from './stream-grammar';

type Json = Record<string, unknown>;

const PREFIX: Readonly<Record<string, string>> = { message: 'msg_', function_call: 'fc_', custom_tool_call: 'ctc_', reasoning: 'rs_', web_search_call: 'ws_' };
const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);
const LIFECYCLE = new Set(['response.created', 'response.in_progress', ...TERMINAL]);

interface ItemState {
  item: Json;
  done: boolean;
  /** message: each part's text so far and whether it is done; function/custom: the input so far; reasoning: the summary text so far. */
  parts: Array<{ text: string; textDone: boolean; done: boolean }>;
  input: string;
  summary: Array<{ text: string; textDone: boolean; done: boolean }>;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const jsonObject = (text: string): boolean => {
  try {
    return isObject(JSON.parse(text));
  } catch {
    return false;
  }
};

/** Violations of a usage object: every figure a number, `cached_tokens` always there, the total adding up. */
export function usageViolations(usage: unknown): string[] {
  if (!isObject(usage)) return ['no usage'];
  const out: string[] = [];
  const details = usage.input_tokens_details as Json | undefined;
  const output = usage.output_tokens_details as Json | undefined;
  for (const [name, value] of [['input_tokens', usage.input_tokens], ['output_tokens', usage.output_tokens], ['total_tokens', usage.total_tokens], ['cached_tokens', details?.cached_tokens], ['cache_write_tokens', details?.cache_write_tokens], ['reasoning_tokens', output?.reasoning_tokens]] as const) {
    if (typeof value !== 'number') out.push(`usage: ${name} is not a number`);
  }
  if (usage.total_tokens !== (usage.input_tokens as number) + (usage.output_tokens as number)) out.push('usage: total_tokens is not input + output');
  if ((details?.cached_tokens as number) + (details?.cache_write_tokens as number) > (usage.input_tokens as number)) out.push('usage: cached and written tokens exceed input_tokens');
  return out;
}

/**
 * Violations of the Responses stream grammar: `event:` equal to the data's type; no comment-only
 * keep-alives and no `[DONE]`; `sequence_number` 0, 1, 2…; `response.created` then
 * `response.in_progress` first; one response id throughout; each item added at the next
 * output_index with its type's id prefix before any of its events, its deltas carrying its own
 * item_id, its part and `.done` events matching what the deltas said, and `output_item.done`
 * (the item complete) once; one terminal event last, its `output` the done items and its usage
 * whole (`cached_tokens` always present).
 */
export function responsesViolations(frames: readonly Frame[]): string[] {
  const out: string[] = [];
  const items: ItemState[] = [];
  let id: unknown;
  let terminal: Json | undefined;
  frames.forEach((frame, at) => {
    const e = (isObject(frame.data) ? frame.data : {}) as Json;
    const where = `event ${at} (${String(e.type ?? frame.data)})`;
    if (frame.comment) return void out.push(`${where}: a comment, which Codex does not count as an event`);
    if (frame.event !== e.type) out.push(`${where}: event line "${String(frame.event)}" is not its data.type`);
    if (e.sequence_number !== at) out.push(`${where}: sequence_number ${String(e.sequence_number)}, expected ${at}`);
    if (terminal) out.push(`${where}: after the terminal event`);
    if (at === 0 && e.type !== 'response.created') out.push(`${where}: the first event is not response.created`);
    if (at === 1 && e.type !== 'response.in_progress') out.push(`${where}: the second event is not response.in_progress`);
    const type = String(e.type);
    if (LIFECYCLE.has(type)) {
      const response = (e.response ?? {}) as Json;
      if (typeof response.id !== 'string' || !response.id.startsWith('resp_')) out.push(`${where}: response id ${String(response.id)}`);
      if (id === undefined) id = response.id;
      else if (response.id !== id) out.push(`${where}: response id ${String(response.id)}, not ${String(id)}`);
      if (!Array.isArray(response.output)) out.push(`${where}: no output array`);
      else if (!TERMINAL.has(type) && response.output.length !== items.length) out.push(`${where}: output has ${response.output.length} items, ${items.length} were added`);
      if (TERMINAL.has(type)) terminal = e;
      return;
    }
    if (type === 'response.output_item.added') {
      const item = (e.item ?? {}) as Json;
      if (e.output_index !== items.length) out.push(`${where}: output_index ${String(e.output_index)}, expected ${items.length}`);
      const prefix = PREFIX[String(item.type)];
      if (prefix && !String(item.id).startsWith(prefix)) out.push(`${where}: ${String(item.type)} id ${String(item.id)} without ${prefix}`);
      if (item.status !== undefined && item.status !== 'in_progress') out.push(`${where}: added with status ${String(item.status)}`);
      items.push({ item, done: false, parts: [], input: '', summary: [] });
      return;
    }
    const state = items[e.output_index as number];
    if (!state) return void out.push(`${where}: output_index ${String(e.output_index)} was never added`);
    if (state.done) out.push(`${where}: after output_item.done of item ${String(e.output_index)}`);
    if (e.item_id !== undefined && e.item_id !== state.item.id) out.push(`${where}: item_id ${String(e.item_id)} is not item ${String(e.output_index)}'s (${String(state.item.id)})`);
    const itemType = String(state.item.type);
    const only = (wanted: string): boolean => {
      if (itemType === wanted) return true;
      out.push(`${where}: on a ${itemType} item`);
      return false;
    };
    const part = (list: ItemState['parts'], index: unknown, name: string) => {
      const p = list[index as number];
      if (!p) out.push(`${where}: ${name} ${String(index)} was never added`);
      return p;
    };
    switch (type) {
      case 'response.content_part.added':
        if (!only('message')) break;
        if (e.content_index !== state.parts.length) out.push(`${where}: content_index ${String(e.content_index)}, expected ${state.parts.length}`);
        state.parts.push({ text: '', textDone: false, done: false });
        break;
      case 'response.output_text.delta': {
        const p = only('message') ? part(state.parts, e.content_index, 'content part') : undefined;
        if (p?.textDone) out.push(`${where}: after output_text.done`);
        if (p) p.text += String(e.delta);
        break;
      }
      case 'response.output_text.done': {
        const p = only('message') ? part(state.parts, e.content_index, 'content part') : undefined;
        if (p && e.text !== p.text) out.push(`${where}: text ${JSON.stringify(e.text)} is not the deltas' ${JSON.stringify(p.text)}`);
        if (p) p.textDone = true;
        break;
      }
      case 'response.content_part.done': {
        const p = only('message') ? part(state.parts, e.content_index, 'content part') : undefined;
        if (p && !p.textDone) out.push(`${where}: before output_text.done`);
        if (p && (e.part as Json | undefined)?.text !== p.text) out.push(`${where}: part text is not the deltas'`);
        if (p) p.done = true;
        break;
      }
      case 'response.function_call_arguments.delta':
        if (only('function_call')) state.input += String(e.delta);
        break;
      case 'response.function_call_arguments.done':
        if (!only('function_call')) break;
        if (e.arguments !== state.input && !(state.input === '' && e.arguments === '{}')) out.push(`${where}: arguments are not the deltas'`);
        if (!jsonObject(String(e.arguments))) out.push(`${where}: arguments ${JSON.stringify(e.arguments)} are not a JSON object`);
        if (e.name !== state.item.name) out.push(`${where}: name ${String(e.name)} is not the item's`);
        state.input = String(e.arguments);
        break;
      case 'response.custom_tool_call_input.delta':
        if (only('custom_tool_call')) state.input += String(e.delta);
        break;
      case 'response.custom_tool_call_input.done':
        if (only('custom_tool_call') && e.input !== state.input) out.push(`${where}: input is not the deltas'`);
        break;
      case 'response.reasoning_summary_part.added':
        if (!only('reasoning')) break;
        if (e.summary_index !== state.summary.length) out.push(`${where}: summary_index ${String(e.summary_index)}, expected ${state.summary.length}`);
        state.summary.push({ text: '', textDone: false, done: false });
        break;
      case 'response.reasoning_summary_text.delta': {
        const p = only('reasoning') ? part(state.summary, e.summary_index, 'summary part') : undefined;
        if (p) p.text += String(e.delta);
        break;
      }
      case 'response.reasoning_summary_text.done': {
        const p = only('reasoning') ? part(state.summary, e.summary_index, 'summary part') : undefined;
        if (p && e.text !== p.text) out.push(`${where}: summary text is not the deltas'`);
        if (p) p.textDone = true;
        break;
      }
      case 'response.reasoning_summary_part.done': {
        const p = only('reasoning') ? part(state.summary, e.summary_index, 'summary part') : undefined;
        if (p && !p.textDone) out.push(`${where}: before reasoning_summary_text.done`);
        if (p) p.done = true;
        break;
      }
      case 'response.output_item.done': {
        const item = (e.item ?? {}) as Json;
        state.done = true;
        if (item.id !== state.item.id || item.type !== state.item.type) out.push(`${where}: not the item added at ${String(e.output_index)}`);
        if (item.status !== 'completed' && item.status !== 'incomplete') out.push(`${where}: done with status ${String(item.status)}`);
        if (state.parts.some((p) => !p.done) || state.summary.some((p) => !p.done)) out.push(`${where}: a part is not done`);
        if (itemType === 'message' && JSON.stringify((item.content as Json[] | undefined)?.map((c) => c.text)) !== JSON.stringify(state.parts.map((p) => p.text))) out.push(`${where}: content is not the parts'`);
        if (itemType === 'function_call' && (item.arguments !== state.input || !jsonObject(String(item.arguments)))) out.push(`${where}: arguments ${JSON.stringify(item.arguments)} are not the done arguments`);
        if (itemType === 'custom_tool_call' && item.input !== state.input) out.push(`${where}: input is not the done input`);
        if ((itemType === 'function_call' || itemType === 'custom_tool_call') && (typeof item.call_id !== 'string' || item.call_id === '' || item.call_id === item.id)) out.push(`${where}: call_id ${String(item.call_id)} missing or equal to the id`);
        state.item = item;
        break;
      }
      default:
        out.push(`${where}: an event type clients do not know`);
    }
  });
  if (!terminal) return [...out, 'no terminal event (response.completed, .incomplete or .failed)'];
  const response = (terminal.response ?? {}) as Json;
  const expected = { 'response.completed': 'completed', 'response.incomplete': 'incomplete', 'response.failed': 'failed' }[String(terminal.type)];
  if (response.status !== expected) out.push(`${String(terminal.type)} with status ${String(response.status)}`);
  if (terminal.type === 'response.incomplete' && !isObject(response.incomplete_details)) out.push('response.incomplete without incomplete_details');
  if (terminal.type === 'response.failed') {
    const error = response.error as Json | undefined;
    if (typeof error?.code !== 'string' || typeof error.message !== 'string') out.push('response.failed without error.code and error.message');
    return out;
  }
  const open = items.findIndex((s) => !s.done);
  if (open >= 0) out.push(`item ${open} never got output_item.done`);
  if (JSON.stringify(response.output) !== JSON.stringify(items.map((s) => s.item))) out.push('the terminal output is not the done items');
  return [...out, ...usageViolations(response.usage)];
}

/** A fetch for the openai SDK that keeps every event stream it reads; after each test, each is checked against the grammar. */
export function grammarCheckedFetch(): typeof fetch {
  const streams: Array<Promise<string>> = [];
  afterEach(async () => {
    for (const text of await Promise.all(streams.splice(0))) expect(responsesViolations(parseFrames(text))).toEqual([]);
  });
  return async (input, init) => {
    const res = await fetch(input, init);
    if (res.headers.get('content-type')?.startsWith('text/event-stream')) streams.push(res.clone().text());
    return res;
  };
}
