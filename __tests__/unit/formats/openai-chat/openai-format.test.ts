/** lib/formats/openai-chat's tables and rules: stop reasons, tool names, usage, what is dropped, what is refused (naming the field), gateway signatures. */
import fc from 'fast-check';
import { GatewayError, withoutGatewayThinking, type MessagesRequest } from '../../../../lib';
import { fromChatCompletion } from '../../../../lib/formats/openai-chat/answer-from-chat';
import { messagesFromChat } from '../../../../lib/formats/openai-chat/request-from-chat';
import { toChatRequest } from '../../../../lib/formats/openai-chat/request-to-chat';
import { gatewaySignature, isGatewaySignature, reasoningFieldOf } from '../../../../lib/messages/gateway-thinking';
import { finishReasonOf, stopReasonOf } from '../../../../lib/formats/openai-chat/tables';
import { MAX_TOOL_NAME, nameRestorer, shortToolName } from '../../../../lib/formats/openai-chat/tool-names';
import type { ChatRequest } from '../../../../lib/formats/openai-chat/types';
import { usageFromChat } from '../../../../lib/formats/openai-chat/usage';

type Json = Record<string, unknown>;
const req = (extra: Json = {}, messages: unknown[] = [{ role: 'user', content: 'Hi' }]): MessagesRequest => ({ model: 'm', max_tokens: 9, messages, ...extra }) as MessagesRequest;
const chatOf = (r: MessagesRequest): Json => toChatRequest(r, 'max_tokens', false);
const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).code).toBe('invalid_request_error');
    return (err as Error).message;
  }
  throw new Error('not refused');
};

describe('stop reasons', () => {
  it.each([
    ['stop', false, 'end_turn'], ['stop', true, 'tool_use'], [null, true, 'tool_use'], ['tool_calls', true, 'tool_use'], ['tool_calls', false, 'end_turn'],
    ['length', false, 'max_tokens'], ['length', true, 'max_tokens'], ['content_filter', false, 'refusal'], ['function_call', true, 'tool_use'], ['weird', false, 'end_turn'],
  ])('finish_reason %s (tools called: %s) is %s', (finish, called, stop) => {
    expect(stopReasonOf(finish, called)).toBe(stop);
  });
  it.each([['end_turn', 'stop'], ['stop_sequence', 'stop'], ['pause_turn', 'stop'], ['max_tokens', 'length'], ['refusal', 'content_filter'], ['tool_use', 'tool_calls'], [null, 'stop']])(
    'stop_reason %s is finish_reason %s', (stop, finish) => expect(finishReasonOf(stop)).toBe(finish),
  );
});

describe('tool names over 64 characters', () => {
  const long = (tail: string): string => `mcp__server__${'x'.repeat(60)}${tail}`;

  it('are shortened to 64 characters, distinct for names sharing a prefix, and given back in answers', () => {
    expect(shortToolName('Write')).toBe('Write');
    expect(shortToolName('a'.repeat(64))).toBe('a'.repeat(64));
    const [a, b] = [shortToolName(long('_one')), shortToolName(long('_two'))];
    expect([a.length, b.length]).toEqual([MAX_TOOL_NAME, MAX_TOOL_NAME]);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[a-zA-Z0-9_-]+$/);
    const tools = [{ name: long('_one'), input_schema: { type: 'object' as const } }, { name: 'short', input_schema: { type: 'object' as const } }];
    const sent = chatOf(req({ tools, tool_choice: { type: 'tool', name: long('_one') } }, [
      { role: 'user', content: 'go' }, { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: long('_one'), input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
    ]));
    expect((sent.tools as Json[]).map((t) => (t.function as Json).name)).toEqual([a, 'short']);
    expect(sent.tool_choice).toEqual({ type: 'function', function: { name: a } });
    expect(((sent.messages as Json[])[1]?.tool_calls as Json[])[0]).toMatchObject({ function: { name: a } });
    const answer = { choices: [{ message: { content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: a, arguments: '{}' } }] }, finish_reason: 'tool_calls' }] };
    expect(fromChatCompletion(answer, 'msg', 'up', nameRestorer(tools)).message.content).toEqual([{ type: 'tool_use', id: 'c', name: long('_one'), input: {} }]);
  });
});

describe('usage', () => {
  it('input is prompt tokens less cached tokens; cache reads are the cached tokens; no cache writes', () => {
    expect(usageFromChat({ prompt_tokens: 12_400, completion_tokens: 180, prompt_tokens_details: { cached_tokens: 11_264 } })).toEqual({ inputTokens: 1_136, cacheReadInputTokens: 11_264, outputTokens: 180 });
    expect(usageFromChat({ prompt_tokens: 100, completion_tokens: 5, prompt_cache_hit_tokens: 60 })).toEqual({ inputTokens: 40, cacheReadInputTokens: 60, outputTokens: 5 }); // DeepSeek
    expect(usageFromChat({ prompt_tokens: 10, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 99 } })).toEqual({ inputTokens: 0, cacheReadInputTokens: 10, outputTokens: 1 });
    expect(usageFromChat({ prompt_tokens: 10, completion_tokens: 1, prompt_tokens_details: null })).toEqual({ inputTokens: 10, cacheReadInputTokens: 0, outputTokens: 1 });
    expect(usageFromChat({ prompt_tokens: 10 })).toBeUndefined();
    expect(usageFromChat(null)).toBeUndefined();
  });
});

describe('Messages → an OpenAI-format upstream', () => {
  it('drops the hints it has no counterpart for, and keeps a text-only request as before', () => {
    const sent = chatOf(req({
      system: [{ type: 'text', text: 'A', cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'B' }], thinking: { type: 'adaptive' },
      context_management: { edits: [] }, output_config: { effort: 'high' }, service_tier: 'auto', metadata: { user_id: 'u' },
    }));
    expect(sent).toEqual({ model: 'm', max_tokens: 9, user: 'u', messages: [{ role: 'system', content: 'A\nB' }, { role: 'user', content: 'Hi' }] });
  });

  it('puts tool results first as tool messages, their images in the user message after them, and a mid-conversation system turn in its place', () => {
    const png = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } };
    const sent = chatOf(req({}, [
      { role: 'user', content: 'go' }, { role: 'system', content: [{ type: 'text', text: 'Reminder' }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', signature: 'EqQBgenuine+/=' }, { type: 'redacted_thinking', data: 'x' }, { type: 'tool_use', id: 'a', name: 'f', input: { x: 1 } }, { type: 'tool_use', id: 'b', name: 'f', input: {} }] },
      { role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: 'r1' }, png] }, { type: 'tool_result', tool_use_id: 'b', content: 'r2', is_error: true }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'not sent', signature: 's' }, { type: 'text', text: 'Done' }] },
    ]));
    expect(sent.messages).toEqual([
      { role: 'user', content: 'go' }, { role: 'system', content: 'Reminder' },
      { role: 'assistant', content: '', reasoning_content: 'hm', tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }, { id: 'b', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'a', content: 'r1' }, { role: 'tool', tool_call_id: 'b', content: 'r2' },
      { role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR' } }] },
      { role: 'assistant', content: 'Done' },
    ]);
  });

  it('sends reasoning back in the field the upstream used, and asks streams for the usage', () => {
    const sent = toChatRequest(req({}, [{ role: 'assistant', content: [{ type: 'thinking', thinking: 'r', signature: gatewaySignature('reasoning') }, { type: 'tool_use', id: 'a', name: 'f', input: {} }] }]), 'max_completion_tokens', true);
    expect(sent).toMatchObject({ max_completion_tokens: 9, stream: true, stream_options: { include_usage: true }, messages: [{ reasoning: 'r' }] });
  });

  it.each<[string, MessagesRequest, RegExp]>([
    ['an unknown field', req({ container: 'c' }), /^container: an OpenAI-format upstream has no such field$/],
    ['top_k', req({ top_k: 5 }), /^top_k: an OpenAI-format upstream has no top_k$/],
    ['a server tool', req({ tools: [{ name: 'f', input_schema: { type: 'object' } }, { type: 'web_search_20250305', name: 'web_search' }] }), /^tools\.1\.type: the server tool "web_search_20250305" runs on Anthropic upstreams only$/],
    ['an uploaded image', req({}, [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'f' } }] }]), /^messages\.0\.content\.0\.source\.type: .*not "file"/],
    ['a document by URL', req({}, [{ role: 'user', content: [{ type: 'document', source: { type: 'url', url: 'https://x/a.pdf' } }] }]), /^messages\.0\.content\.0\.source\.type/],
    ['a search result block', req({}, [{ role: 'user', content: [{ type: 'search_result', source: 'x' }] }]), /^messages\.0\.content\.0\.type: .*"search_result"/],
    ['a server tool block in an assistant turn', req({}, [{ role: 'assistant', content: [{ type: 'server_tool_use', id: 's', name: 'web_search', input: {} }] }]), /^messages\.0\.content\.0\.type/],
    ['a text block without text', req({}, [{ role: 'user', content: [{ type: 'text' }, { type: 'image', source: { type: 'url', url: 'https://x' } }] }]), /^messages\.0\.content\.0\.text: must be a string$/],
    ['an image without a source', req({}, [{ role: 'user', content: [{ type: 'image' }] }]), /^messages\.0\.content\.0\.source: must be an object$/],
    ['a tool without a name', req({ tools: [{ input_schema: { type: 'object' } }] }), /^tools\.0\.name: must be a string$/],
    ['a non-text system block', req({ system: [{ type: 'image', source: { type: 'url', url: 'https://x' } }] }), /^system\.0\.type: a system prompt holds text blocks only$/],
    ['a structured output other than json_schema', req({ output_config: { format: { type: 'regex' } } }), /^output_config\.format\.type/],
  ])('refuses %s, naming it', (_name, request, message) => {
    expect(refusal(() => chatOf(request))).toMatch(message);
  });

  it('never fails other than by naming what it refuses, whatever the blocks hold', () => {
    const value = fc.jsonValue({ maxDepth: 3 });
    const block = fc.record({ type: fc.constantFrom('text', 'image', 'document', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'x'), text: value, source: value, content: value, id: value, name: value, input: value, thinking: value, tool_use_id: value }, { requiredKeys: ['type'] });
    const where = fc.constantFrom('user', 'assistant', 'system', 'system prompt', 'tools');
    fc.assert(fc.property(where, fc.array(block, { maxLength: 4 }), fc.array(fc.dictionary(fc.string(), value), { maxLength: 2 }), (at, content, tools) => {
      const request = at === 'tools' ? req({ tools }) : at === 'system prompt' ? req({ system: content }) : req({}, [{ role: at, content }]);
      try {
        chatOf(request);
      } catch (err) {
        expect(err).toBeInstanceOf(GatewayError);
      }
    }), { numRuns: 3000 });
  });
});

describe('chat → Messages', () => {
  const chat = (extra: Json = {}, messages: unknown[] = [{ role: 'user', content: 'Hi' }]): ChatRequest => ({ model: 'm', messages, ...extra }) as ChatRequest;

  it('turns parallel_tool_calls: false into disable_parallel_tool_use, and reasoning into thinking the gateway signs', () => {
    const out = messagesFromChat(chat({ parallel_tool_calls: false }, [{ role: 'assistant', content: null, reasoning_content: 'why', tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '' } }] }]));
    expect(out.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(out.messages[0]?.content).toEqual([{ type: 'thinking', thinking: 'why', signature: 'model-gateway:v1:reasoning_content' }, { type: 'tool_use', id: 'a', name: 'f', input: {} }]);
  });

  it.each<[string, ChatRequest, RegExp]>([
    ['a data URL that is not base64', chat({}, [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png,abc' } }] }]), /^messages\.0\.content\.0\.image_url\.url: a data URL must be base64/],
    ['an uploaded file id', chat({}, [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }]), /^messages\.0\.content\.0\.file: /],
    ['an audio part', chat({}, [{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }]), /^messages\.0\.content\.0\.type: the Messages format has no "input_audio" part$/],
    ['arguments that are not a JSON object', chat({}, [{ role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '[1' } }] }]), /^messages\.0\.tool_calls\.0\.function\.arguments: must be a JSON object$/],
    ['parameters that are not an object schema', chat({ tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'array' } } }] }), /^tools\.0\.function\.parameters\.type/],
    ['an allowed_tools choice', chat({ tool_choice: { type: 'allowed_tools', function: { name: 'x' } } as never }), /^tool_choice\.type: the Messages format has no tool choice "allowed_tools"$/],
    ['a json_object format', chat({ response_format: { type: 'json_object' } }), /^response_format\.type/],
  ])('refuses %s, naming it', (_name, request, message) => {
    expect(refusal(() => messagesFromChat(request))).toMatch(message);
  });
});

describe('gateway signatures', () => {
  const genuine = 'EqQBCkgIARABGAIiQL+/a0=="\\ü';

  it('name the field the reasoning came in, and are never mistaken for a genuine one', () => {
    expect(gatewaySignature('reasoning_content')).toBe('model-gateway:v1:reasoning_content');
    expect(reasoningFieldOf(gatewaySignature('reasoning'))).toBe('reasoning');
    expect(reasoningFieldOf(genuine)).toBe('reasoning_content');
    expect([isGatewaySignature(gatewaySignature('reasoning')), isGatewaySignature(genuine), isGatewaySignature(undefined)]).toEqual([true, false, false]);
  });

  it('are dropped for an Anthropic upstream, with a turn they alone made; nothing else changes', () => {
    const mine = { type: 'thinking', thinking: 't', signature: gatewaySignature('reasoning_content') };
    const theirs = { type: 'thinking', thinking: 'u', signature: genuine };
    const untouched = req({ thinking: { type: 'adaptive' } }, [{ role: 'user', content: 'a' }, { role: 'assistant', content: [theirs, { type: 'text', text: 'x' }] }]);
    expect(withoutGatewayThinking(untouched)).toBe(untouched);
    const first = { role: 'user', content: 'a' };
    const request = req({}, [first, { role: 'assistant', content: [mine, theirs, { type: 'tool_use', id: 'i', name: 'f', input: {} }] }, { role: 'assistant', content: [mine] }, { role: 'user', content: 'b' }]);
    const sent = withoutGatewayThinking(request);
    expect(sent.messages).toEqual([first, { role: 'assistant', content: [theirs, { type: 'tool_use', id: 'i', name: 'f', input: {} }] }, { role: 'user', content: 'b' }]);
    expect(sent.messages[0]).toBe(first);
    expect(JSON.stringify(sent)).toContain(JSON.stringify(genuine));
    expect((request.messages[1]?.content as unknown[]).length).toBe(3); // the caller's body is not modified
  });
});
