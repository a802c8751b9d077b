/** The Responses format's pieces that must hold for any input: reversible ids and tool names, the gateway's reasoning content, usage, budgets. */
import { callIdOf, responseIdOf, toolUseIdOf } from '../../../../lib/formats/openai-responses/ids';
import { outputAndThinking, reasoningBlockOf, reasoningSeal } from '../../../../lib/formats/openai-responses/reasoning';
import { refused } from '../../../helpers/config-error';
import { ToolNames, wireNameOf } from '../../../../lib/formats/openai-responses/tools';
import { parsableUsage, responsesUsage } from '../../../../lib/formats/openai-responses/usage';
import { shortToolName } from '../../../../lib/formats/openai-chat/tool-names';

describe('call ids ⇄ tool_use ids', () => {
  const ids = ['call_abc123', 'toolu_01XyZ', 'fc-1', 'call:1/x', 'call 2', 'α', 'cid_abc', `cid_${Buffer.from('call:1').toString('base64url')}`, 'x'.repeat(300), ''];
  it.each(ids)('%j: in Anthropic\'s charset, and back', (id) => {
    const wire = toolUseIdOf(id);
    expect(wire).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(callIdOf(wire)).toBe(id);
  });

  it('ids every server makes pass unchanged, and no two call ids share a tool_use id', () => {
    expect(toolUseIdOf('toolu_01XyZ')).toBe('toolu_01XyZ');
    expect(toolUseIdOf('call_abc123')).toBe('call_abc123');
    expect(new Set(ids.map(toolUseIdOf)).size).toBe(ids.length);
  });

  it('a response id is the request id behind resp_', () => {
    expect(responseIdOf('req_0123456789abcdef0123456789abcdef')).toBe('resp_0123456789abcdef0123456789abcdef');
  });
});

describe('tool names', () => {
  it('a name both upstream formats take stays; a namespace joins with __; a long name is the chat translation\'s own', () => {
    expect(wireNameOf('exec_command')).toBe('exec_command');
    expect(wireNameOf('spawn_agent', 'multi_agent_v1')).toBe('multi_agent_v1__spawn_agent');
    const long = `mcp__server__${'x'.repeat(80)}`;
    expect(wireNameOf(long)).toBe(shortToolName(long));
    expect(wireNameOf('a.b c')).toMatch(/^a_b_c_[0-9a-f]{8}$/);
  });

  it('collisions get names of their own, and every upstream name restores its tool', () => {
    const names = new ToolNames();
    const plain = names.add({ kind: 'function', name: 'a__b' });
    const spaced = names.add({ kind: 'custom', name: 'b', namespace: 'a' });
    const dotted = names.add({ kind: 'function', name: 'a.b' });
    const underscored = names.add({ kind: 'function', name: 'a_b' });
    expect(plain).toBe('a__b');
    expect(new Set([plain, spaced, dotted, underscored]).size).toBe(4);
    for (const wire of [plain, spaced, dotted, underscored]) expect(wire).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(names.restore(spaced)).toEqual({ kind: 'custom', name: 'b', namespace: 'a' });
    expect(names.restore(dotted)).toEqual({ kind: 'function', name: 'a.b' });
    expect(names.wire('b', 'a')).toBe(spaced);
    expect(names.restore('never_offered')).toEqual({ kind: 'function', name: 'never_offered' });
  });
});

describe('reasoning content', () => {
  const thinking = { type: 'thinking' as const, thinking: 'Plan ✓ "quoted"', signature: 'EqQB+/==' };
  const redacted = { type: 'redacted_thinking' as const, data: 'opaque+/==' };
  const seal = reasoningSeal('a-reasoning-secret-of-32-characters-at-least', 'test');
  const item = (content: string) => ({ type: 'reasoning' as const, summary: [{ type: 'summary_text' as const, text: 'S' }], encrypted_content: content });
  const signed = { type: 'thinking', thinking: 'S', signature: 'model-gateway:v1:reasoning_content' };

  it.each([['thinking', thinking], ['redacted_thinking', redacted]] as const)('carries a %s block byte for byte, authenticated', (_type, block) => {
    const dropped: string[] = [];
    const content = seal.seal(block);
    expect(content).toMatch(/^mgw\.v2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(reasoningBlockOf(item(content), 'input.0', dropped, seal)).toEqual({ block, unauthenticated: false });
    expect(dropped).toEqual([]);
  });

  it('content another server encrypted is never sent on: its text becomes thinking the gateway signs, and the drop is recorded', () => {
    const dropped: string[] = [];
    const { block } = reasoningBlockOf({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'A' }, { type: 'summary_text', text: 'B' }], encrypted_content: 'gAAAA' }, 'input.3', dropped, seal);
    expect(block).toEqual({ type: 'thinking', thinking: 'A\n\nB', signature: 'model-gateway:v1:reasoning_content' });
    expect(dropped).toEqual(['input.3.encrypted_content (not this gateway\'s)']);
    expect(reasoningBlockOf({ type: 'reasoning', summary: [] }, 'input.0', dropped, seal)).toEqual({ block: undefined, unauthenticated: false });
  });

  it('content that says it is the gateway\'s but does not authenticate (made up, altered, another secret\'s, the unauthenticated v1) is dropped like another server\'s, and said so', () => {
    const genuine = seal.seal(thinking);
    const [head, mac] = [genuine.slice(0, genuine.lastIndexOf('.')), genuine.slice(genuine.lastIndexOf('.') + 1)];
    const forgedBlock = Buffer.from(JSON.stringify({ type: 'thinking', thinking: 'x', signature: 'EqQB+/==' })).toString('base64url');
    for (const content of [
      `mgw.v1.${forgedBlock}`, `mgw.v2.${forgedBlock}`, `mgw.v2.${forgedBlock}.${mac}`, `${head}x.${mac}`, `${head}.${mac.slice(0, -1)}A`, reasoningSeal(undefined, 'test').seal(thinking), 'mgw.v2.!!!',
    ]) {
      const dropped: string[] = [];
      expect([content, reasoningBlockOf(item(content), 'input.1', dropped, seal)]).toEqual([content, { block: signed, unauthenticated: true }]);
      expect(dropped).toEqual(['input.1.encrypted_content (reasoning this gateway cannot authenticate)']);
    }
  });

  it('a reasoning secret under 32 characters is refused at construction', () => {
    expect(() => reasoningSeal('short', 'responsesToMessages: option "reasoningSecret"')).toThrow(refused('ERR_MGW_INVALID_OPTION', /^responsesToMessages: option "reasoningSecret" must be a secret of at least 32 characters/));
  });
});

describe('effort → thinking budget and output bound', () => {
  const bounds = { defaultMaxTokens: 4096 };
  it.each([
    ['no effort', undefined, undefined, {}, { maxTokens: undefined, thinking: undefined }],
    ['none', 'none', undefined, {}, { maxTokens: undefined, thinking: undefined }],
    ['low, no bound: the budget plus the default answer', 'low', undefined, {}, { maxTokens: 2048 + 4096, thinking: { type: 'enabled', budget_tokens: 2048 } }],
    ['medium within a model bound of 3000', 'medium', undefined, { maxOutputTokens: 3000 }, { maxTokens: 3000, thinking: { type: 'enabled', budget_tokens: 2999 } }],
    ['high with max_output_tokens 1500', 'high', 1500, {}, { maxTokens: 1500, thinking: { type: 'enabled', budget_tokens: 1499 } }],
    ['minimal with max_output_tokens 1000: under Anthropic\'s minimum, none', 'minimal', 1000, {}, { maxTokens: 1000, thinking: undefined }],
  ])('%s', (_name, effort, given, model, expected) => {
    expect(outputAndThinking(effort, given, { ...bounds, ...model })).toEqual(expected);
  });
});

it('usage: the cached part inside input_tokens, cache writes from the total or the breakdown, reasoning tokens when reported', () => {
  expect(responsesUsage({ input_tokens: 7, output_tokens: 40, cache_read_input_tokens: 1500, cache_creation_input_tokens: 1300 })).toEqual({
    input_tokens: 2807, input_tokens_details: { cached_tokens: 1500, cache_write_tokens: 1300 }, output_tokens: 40, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2847,
  });
  expect(responsesUsage({ input_tokens: 1, output_tokens: 2, cache_read_input_tokens: null, cache_creation_input_tokens: null, cache_creation: { ephemeral_5m_input_tokens: 3, ephemeral_1h_input_tokens: 4 }, output_tokens_details: { thinking_tokens: 2 } })).toMatchObject({
    input_tokens: 8, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 7 }, output_tokens_details: { reasoning_tokens: 2 },
  });
  expect(responsesUsage(undefined)).toEqual({ input_tokens: 0, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 });
});

describe('an upstream usage as a client gets it (parsableUsage)', () => {
  const good = { input_tokens: 1200, input_tokens_details: { cached_tokens: 1000, cache_write_tokens: 100 }, output_tokens: 40, output_tokens_details: { reasoning_tokens: 4 }, total_tokens: 1240 };
  it('passes a usage whose figures are whole non-negative numbers as it is (the same object), and none as none', () => {
    expect(parsableUsage(good)).toBe(good);
    const bare = { input_tokens: 1, output_tokens: 2, total_tokens: 3 };
    expect(parsableUsage(bare)).toBe(bare);
    expect(parsableUsage(null)).toBeNull();
    expect(parsableUsage(undefined)).toBeUndefined();
    expect(parsableUsage('usage')).toBeNull();
  });
  it.each([-100, 2.5, '100', Number.POSITIVE_INFINITY, Number.NaN, null])('input_tokens %p: 0, the cache parts within it, the total input + output', (figure) => {
    expect(parsableUsage({ ...good, input_tokens: figure })).toEqual({ ...good, input_tokens: 0, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }, total_tokens: 40 });
  });
  it('a bad figure in the details is 0; details that are missing a required figure get it; details that are no object are null', () => {
    expect(parsableUsage({ ...good, output_tokens_details: { reasoning_tokens: -1 } })).toEqual({ ...good, output_tokens_details: { reasoning_tokens: 0 } });
    expect(parsableUsage({ ...good, input_tokens_details: {} })).toEqual({ ...good, input_tokens_details: { cached_tokens: 0 } });
    expect(parsableUsage({ ...good, input_tokens_details: { cached_tokens: 5000, cache_write_tokens: 'x' } })).toEqual({ ...good, input_tokens_details: { cached_tokens: 1200, cache_write_tokens: 0 } });
    expect(parsableUsage({ ...good, output_tokens_details: 'x' })).toEqual({ ...good, output_tokens_details: null });
    expect(parsableUsage({ input_tokens: 1, output_tokens: 2 })).toEqual({ input_tokens: 1, output_tokens: 2, total_tokens: 3 });
  });
});
