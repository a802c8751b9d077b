/** Stored state in the API's item shapes: a stored input translates to the bytes the request sent; encrypted reasoning is kept, shown on request; the state factories refuse the unresolved option. */
import { MemoryStore, proxyResponses, resolveOptions, responsesState, storedResponses, anthropicAdapter } from '../../../../lib';
import { apiItemsOf, historyOf, sealedOutput, shownItem, shownResponse } from '../../../../lib/formats/openai-responses/history';
import { messagesFromResponses } from '../../../../lib/formats/openai-responses/request';
import { reasoningSeal } from '../../../../lib/formats/openai-responses/reasoning';
import type { InputItem, OutputItem, ResponsesRequest } from '../../../../lib/formats/openai-responses/types';
import { refused } from '../../../helpers/config-error';

const target = { format: 'anthropic' as const, defaultMaxTokens: 4096, seal: reasoningSeal(undefined, 'test') };
const translate = (input: string | InputItem[]): string => JSON.stringify(messagesFromResponses({ model: 'm', input } as ResponsesRequest, target).request);

it.each<[string, string | InputItem[]]>([
  ['a string', 'Hello'],
  ['short-form messages of every role', [{ role: 'developer', content: 'Be brief.' }, { role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello.' }, { role: 'system', content: 'Mid-conversation.' }, { role: 'user', content: '' }, { role: 'user', content: 'Again' }]],
  ['typed messages, calls and their outputs', [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather?' }] }, { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{"a":1}' }, { type: 'function_call_output', call_id: 'c1', output: 'sunny' }]],
  ['an item_reference', [{ id: 'msg_1', role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello.' }, { type: 'item_reference', id: 'msg_1' }]],
])('%s, stored as the API\'s items, translates to the same request', (_name, input) => {
  const items = apiItemsOf(input);
  expect(items.every((i) => i.type !== undefined && (i.type !== 'message' || Array.isArray(i.content)))).toBe(true);
  expect(items.some((i) => i.type === 'item_reference')).toBe(false);
  expect(translate(items as InputItem[])).toBe(translate(input));
});

it('a string is a user message with an input_text part; an assistant\'s string an output_text part', () => {
  expect(apiItemsOf('Hi')).toEqual([{ role: 'user', type: 'message', content: [{ type: 'input_text', text: 'Hi' }] }]);
  expect(apiItemsOf([{ role: 'assistant', content: 'Yes.' }])).toEqual([{ role: 'assistant', type: 'message', content: [{ type: 'output_text', text: 'Yes.', annotations: [] }] }]);
  expect(apiItemsOf([{ type: 'item_reference', id: 'msg_9' }], [{ id: 'msg_9', type: 'message', role: 'user', content: [] }])).toEqual([{ id: 'msg_9', type: 'message', role: 'user', content: [] }]);
});

it('the history is the input, then the output; encrypted reasoning is kept whatever was asked and shown only on request', () => {
  const output: OutputItem[] = [{ type: 'reasoning', id: 'rs_1', summary: [], status: 'completed' }, { type: 'message', id: 'msg_2', role: 'assistant', status: 'completed', content: [] }];
  const kept = sealedOutput(output, new Map([['rs_1', 'mgw.v1.abc']]));
  expect(kept[0]).toEqual({ type: 'reasoning', id: 'rs_1', summary: [], status: 'completed', encrypted_content: 'mgw.v1.abc' });
  expect(output[0]).not.toHaveProperty('encrypted_content');
  expect(historyOf({ inputItems: [{ id: 'msg_0', type: 'message' }], response: { output: kept } }).map((i) => i.id)).toEqual(['msg_0', 'rs_1', 'msg_2']);
  expect(shownItem(kept[0] as unknown as Record<string, unknown>, false)).not.toHaveProperty('encrypted_content');
  expect(shownItem(kept[0] as unknown as Record<string, unknown>, true)).toHaveProperty('encrypted_content', 'mgw.v1.abc');
  expect(shownResponse({ id: 'resp_1', output: kept }, false)).toEqual({ id: 'resp_1', output });
});

it('the state factories take the resolved option only', () => {
  const resolved = resolveOptions({ store: new MemoryStore(), models: [{ id: 'm', capability: 'llm', upstream: anthropicAdapter({ baseURL: 'http://127.0.0.1:1' }), pricing: { input: 1 } }], responses: { store: true } }).responses;
  expect(() => responsesState({ responses: resolved })).not.toThrow();
  for (const make of [() => responsesState({ responses: { store: true } as never }), () => storedResponses({ responses: undefined as never }), () => proxyResponses({ responses: { store: true, retentionDays: 30, maxBytes: 1024 } as never })]) {
    expect(make).toThrow(refused('ERR_MGW_INVALID_OPTION', /option "responses" must be the resolved responses option/));
  }
});
