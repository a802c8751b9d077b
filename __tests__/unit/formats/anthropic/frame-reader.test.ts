/** lib/formats/anthropic: the forwarding reader keeps content frames as the upstream wrote them, and reads any other writing by the SSE rules. */
import { AnthropicFrameReader, ForwardedFrame } from '../../../../lib/formats/anthropic';

const frame = (event: string, data: object): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const start = frame('message_start', { type: 'message_start', message: { id: 'msg_1' } });
const delta = frame('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } });

describe('AnthropicFrameReader', () => {
  it('gives content frames as ForwardedFrames of their own text, other frames to parse', () => {
    const items = new AnthropicFrameReader(false).read(start + delta + delta) ?? [];
    expect(items).toHaveLength(3);
    expect(items[0]).toEqual({ event: 'message_start', data: JSON.stringify({ type: 'message_start', message: { id: 'msg_1' } }) });
    expect(items[1]).toBeInstanceOf(ForwardedFrame);
    expect((items[1] as ForwardedFrame).text).toBe(delta);
  });

  it('with runs, gives a stretch of content frames as one', () => {
    const items = new AnthropicFrameReader(true).read(start + delta + delta) ?? [];
    expect(items).toHaveLength(2);
    expect((items[1] as ForwardedFrame).text).toBe(delta + delta);
  });

  it('waits for a frame split across chunks', () => {
    const reader = new AnthropicFrameReader(false);
    expect(reader.read(delta.slice(0, 20))).toBeUndefined();
    expect((reader.read(delta.slice(20))?.[0] as ForwardedFrame).text).toBe(delta);
  });

  it('reads a body written another way (CRLF, comments) by the SSE rules, as frames to parse', () => {
    const items = new AnthropicFrameReader(false).read(`: ping\r\n${start.replace(/\n/g, '\r\n')}`) ?? [];
    expect(items).toEqual([{ event: 'message_start', data: JSON.stringify({ type: 'message_start', message: { id: 'msg_1' } }) }]);
  });
});
