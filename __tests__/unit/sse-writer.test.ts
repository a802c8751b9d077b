/** withFirstFrame(): a raw chunk's first frame replaced, only when the chunk begins with exactly that frame. */
import { withFirstFrame } from '../../lib/streaming/sse-writer';

const from = 'event: a\ndata: {"model":"é"}\n\n';
const to = 'event: a\ndata: {"model":"public"}\n\n';
const rest = 'event: b\ndata: {}\n\n';

it('replaces the first frame of text and of bytes, keeping the rest as it came', () => {
  expect(withFirstFrame(from + rest, from, to)).toBe(to + rest);
  const bytes = withFirstFrame(new TextEncoder().encode(from + rest), from, to);
  expect(Buffer.from(bytes as Uint8Array).toString()).toBe(to + rest);
});

it('gives up when the chunk does not begin with exactly that frame', () => {
  expect(withFirstFrame(rest + from, from, to)).toBeUndefined();
  expect(withFirstFrame(new TextEncoder().encode(`event:a\ndata: {"model":"é"}\n\n${rest}`), from, to)).toBeUndefined();
  expect(withFirstFrame(new TextEncoder().encode(from).subarray(0, 10), from, to)).toBeUndefined();
});
