/** frame(): one SSE frame with its event line and the event as JSON.stringify writes it. */
import { frame } from '../../../lib/wire/sse-writer';

it('writes the event line and the JSON data line', () => {
  const event = { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'a\nb "c"' } };
  expect(frame(event)).toBe(`event: content_block_delta\ndata: ${JSON.stringify(event)}\n\n`);
  expect(frame(event).split('\n')).toHaveLength(4); // a newline in the text never breaks the frame
});

it.each(['a\nb', 'a\rb', 'a\r\nevent: response.completed'])('refuses an event type with a line break (%j): it would write a line of its own', (type) => {
  expect(() => frame({ type })).toThrow(/an event type with a line break cannot be an SSE event line/);
});
