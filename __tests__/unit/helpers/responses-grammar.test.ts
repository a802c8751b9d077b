/** The Responses grammar checker catches each way peers' streams were seen to break Codex and the openai SDK (responses-api reference §4). */
import { responsesViolations } from '../../helpers/responses-grammar';
import type { Frame } from '../../helpers/stream-grammar';

type Json = Record<string, unknown>;
const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 4, cache_write_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
const message = { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hi', annotations: [] }] };
const call = { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '{"a":1}', status: 'completed' };
const response = (status: string, output: Json[] = [], extra: Json = {}): Json => ({ id: 'resp_1', object: 'response', status, output, usage: status === 'in_progress' ? null : usage, ...extra });

/** A stream of events (sequence numbers filled in, unless an event sets its own). */
const frames = (events: Json[]): Frame[] => events.map((e, i) => ({ event: String(e.type), data: { sequence_number: i, ...e } }));
const opening: Json[] = [{ type: 'response.created', response: response('in_progress') }, { type: 'response.in_progress', response: response('in_progress') }];
const text: Json[] = [
  { type: 'response.output_item.added', output_index: 0, item: { ...message, status: 'in_progress', content: [] } },
  { type: 'response.content_part.added', item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '' } },
  { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hi' },
  { type: 'response.output_text.done', item_id: 'msg_1', output_index: 0, content_index: 0, text: 'Hi' },
  { type: 'response.content_part.done', item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: 'Hi' } },
  { type: 'response.output_item.done', output_index: 0, item: message },
];
const fn: Json[] = [
  { type: 'response.output_item.added', output_index: 1, item: { ...call, arguments: '', status: 'in_progress' } },
  { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 1, delta: '{"a":' },
  { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 1, delta: '1}' },
  { type: 'response.function_call_arguments.done', item_id: 'fc_1', output_index: 1, arguments: '{"a":1}', name: 'f' },
  { type: 'response.output_item.done', output_index: 1, item: call },
];
const completed = { type: 'response.completed', response: response('completed', [message, call]) };
const valid = [...opening, ...text, ...fn, completed];
const without = (events: Json[], type: string): Json[] => events.filter((e) => e.type !== type);
const replace = (events: Json[], at: number, event: Json): Json[] => events.map((e, i) => (i === at ? event : e));

it('passes a well-formed stream, keep-alive in_progress events carrying the output so far included', () => {
  expect(responsesViolations(frames(valid))).toEqual([]);
  const kept = [...opening, ...text.slice(0, 3), { type: 'response.in_progress', response: response('in_progress', [message]) }, ...text.slice(3), ...fn, completed];
  expect(responsesViolations(frames(kept))).toEqual([]);
});

it.each<[string, Json[] | Frame[], RegExp]>([
  ['a delta before its item was added (Codex: "OutputTextDelta without active item", llm-rosetta #56)', [...opening, ...text.slice(2), ...fn, completed], /was never added/],
  ['a call without output_item.done (Portkey: Codex never sees the call)', [...opening, ...text, ...without(fn, 'response.output_item.done'), completed], /never got output_item.done/],
  ['a call whose arguments ride on the message\'s item_id (Portkey)', [...opening, ...text, ...replace(fn, 1, { ...(fn[1] as Json), item_id: 'msg_1' }), completed], /item_id msg_1 is not item 1's/],
  ['two items at one output_index (Portkey: tc.index ?? 0)', [...opening, ...text, ...fn.map((e) => ({ ...e, output_index: 0 })), completed], /output_index 0, expected 1|after output_item.done/],
  ['response.completed without the id (llm-rosetta #56)', [...opening, ...text, ...fn, { type: 'response.completed', response: { ...response('completed', [message, call]), id: undefined } }], /response id undefined/],
  ['a different id in completed than in created (LiteLLM PR #37956)', [...opening, ...text, ...fn, { type: 'response.completed', response: response('completed', [message, call], { id: 'resp_2' }) }], /not resp_1/],
  ['usage without cached_tokens (Codex retries 5 times, opencode2api PR #11)', [...opening, ...text, ...fn, { type: 'response.completed', response: response('completed', [message, call], { usage: { ...usage, input_tokens_details: {} } }) }], /cached_tokens is not a number/],
  ['completed carrying status incomplete (LiteLLM PR #39069)', [...opening, ...text, ...fn, { type: 'response.completed', response: response('incomplete', [message, call]) }], /with status incomplete/],
  ['a completed output that is not the done items', [...opening, ...text, ...fn, { type: 'response.completed', response: response('completed', [message]) }], /terminal output is not the done items/],
  ['sequence numbers that skip', frames(valid).map((f, i) => (i === 4 ? { ...f, data: { ...(f.data as Json), sequence_number: 99 } } : f)), /sequence_number 99, expected 4/],
  ['arguments done that are not the deltas\'', [...opening, ...text, ...replace(fn, 3, { ...(fn[3] as Json), arguments: '{}' }), completed], /arguments are not the deltas'/],
  ['a call id equal to the item id', [...opening, ...text, ...fn.slice(0, 4), { type: 'response.output_item.done', output_index: 1, item: { ...call, call_id: 'fc_1' } }, completed], /call_id fc_1 missing or equal/],
  ['an id without its type\'s prefix (sub2api #954)', [...opening, ...text, ...replace(fn, 0, { ...(fn[0] as Json), item: { ...call, id: 'toolu_1', status: 'in_progress', arguments: '' } }), completed], /without fc_/],
  ['no terminal event (Codex: "stream closed before response.completed")', [...opening, ...text, ...fn], /no terminal event/],
  ['a keep-alive as a comment (Codex counts only data events)', [...frames(valid.slice(0, 3)), { event: undefined, data: ': keep-alive', comment: true }], /a comment/],
  ['a keep-alive in_progress that empties the output (the SDK then loses its items)', [...opening, ...text.slice(0, 3), { type: 'response.in_progress', response: response('in_progress', []) }, ...text.slice(3), ...fn, completed], /output has 0 items, 1 were added/],
])('catches %s', (_name, events, violation) => {
  const list = (events[0] as Frame).data !== undefined && 'event' in (events[0] as object) ? (events as Frame[]) : frames(events as Json[]);
  expect(responsesViolations(list).join('\n')).toMatch(violation);
});
