/** The gateway's cache breakpoints: where they go, when they are left out, and that nothing the caller sent is changed or copied needlessly. */
import { hasCacheControl, withCacheBreakpoints } from '../../../lib/messages/cache-breakpoints';
import type { MessagesRequest } from '../../../lib/messages/request';

const ON = { autoCache: true };
const CC = { type: 'ephemeral' as const };
const freeze = <T>(value: T): T => {
  if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) freeze(v);
  return Object.freeze(value);
};
const base = (extra: Partial<MessagesRequest> = {}): MessagesRequest => freeze({
  model: 'm', max_tokens: 10,
  system: 'Be brief.',
  tools: [{ name: 'a', input_schema: { type: 'object' } }, { name: 'b', input_schema: { type: 'object' } }],
  messages: [
    { role: 'user', content: 'First' },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's' }, { type: 'tool_use', id: 'x', name: 'a', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'ok' }, { type: 'text', text: 'Next' }] },
  ],
  ...extra,
} as MessagesRequest);
const count = (r: unknown): number => JSON.stringify(r).split('"cache_control"').length - 1;

describe('withCacheBreakpoints', () => {
  it('marks the system prompt, the last block of the last turn and of the user turn before it', () => {
    const request = base();
    const out = withCacheBreakpoints(request, ON);
    expect(out.system).toEqual([{ type: 'text', text: 'Be brief.', cache_control: CC }]);
    expect(out.tools).toBe(request.tools); // the system breakpoint covers the tools before it
    expect(out.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'First', cache_control: CC }] });
    expect(out.messages[1]).toBe(request.messages[1]); // shared, not copied
    expect((out.messages[2]?.content as unknown[])[1]).toEqual({ type: 'text', text: 'Next', cache_control: CC });
    expect(count(out)).toBe(3);
    expect(Object.keys(out)).toEqual(Object.keys(request)); // every key in its place
  });

  it('without a system prompt the last tool ends the prefix; a system list marks its last non-empty text block', () => {
    const { system: _none, ...rest } = base();
    expect(withCacheBreakpoints(rest as MessagesRequest, ON).tools?.[1]).toEqual({ name: 'b', input_schema: { type: 'object' }, cache_control: CC });
    const list = withCacheBreakpoints(base({ system: [{ type: 'text', text: 'A' }, { type: 'text', text: '' }] }), ON);
    expect(list.system).toEqual([{ type: 'text', text: 'A', cache_control: CC }, { type: 'text', text: '' }]);
  });

  it('skips blocks that take no breakpoint (thinking, empty text, unknown types) for the one before them', () => {
    const out = withCacheBreakpoints(base({ messages: [
      { role: 'user', content: 'Go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'a', input: {} }, { type: 'thinking', thinking: 't', signature: 's' }, { type: 'future_block' }] },
    ] }), ON);
    expect(out.messages[1]?.content).toEqual([{ type: 'tool_use', id: 'x', name: 'a', input: {}, cache_control: CC }, { type: 'thinking', thinking: 't', signature: 's' }, { type: 'future_block' }]);
    expect(out.messages[0]?.content).toEqual([{ type: 'text', text: 'Go', cache_control: CC }]);
  });

  it('places them by one rule every turn: the next turn\'s prompt begins with this turn\'s, markers aside', () => {
    const turn1 = base({ messages: [{ role: 'user', content: 'First' }] });
    const turn2 = base();
    const strip = (r: MessagesRequest): string => JSON.stringify(r.messages).replace(/,"cache_control":\{"type":"ephemeral"\}/g, '');
    const [a, b] = [strip(withCacheBreakpoints(turn1, ON)), strip(withCacheBreakpoints(turn2, ON))];
    expect(b.startsWith(a.slice(0, -1))).toBe(true);
    // The end of turn 1's prompt is a breakpoint in turn 2 too: what turn 1 wrote, turn 2 reads.
    expect(withCacheBreakpoints(turn2, ON).messages[0]).toEqual(withCacheBreakpoints(turn1, ON).messages[0]);
  });

  it.each([
    ['autoCache off', base(), { autoCache: false }],
    ['top-level cache_control', base({ cache_control: CC }), ON],
    ['on a system block', base({ system: [{ type: 'text', text: 's', cache_control: CC }] }), ON],
    ['on a tool', base({ tools: [{ name: 'a', input_schema: { type: 'object' }, cache_control: CC }] }), ON],
    ['on an early block', base({ messages: [{ role: 'user', content: [{ type: 'text', text: 'x', cache_control: CC }] }, { role: 'user', content: 'y' }] }), ON],
    ['inside a tool_result', base({ messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: [{ type: 'text', text: 'r', cache_control: CC }] }] }] }), ON],
    ['null (an explicit none)', base({ messages: [{ role: 'user', content: [{ type: 'text', text: 'x', cache_control: null }] }] }), ON],
  ])('a request is returned as it is: %s', (_name, request, profile) => {
    expect(withCacheBreakpoints(request, profile)).toBe(request);
  });

  it('hasCacheControl finds a breakpoint anywhere, and none in a plain request', () => {
    expect(hasCacheControl(base())).toBe(false);
    expect(hasCacheControl(base({ system: [{ type: 'text', text: 's', cache_control: CC }] }))).toBe(true);
  });
});
