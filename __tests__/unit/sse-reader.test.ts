/** SseBatchReader: one batch per read, marked with its chunk only when the chunk is exactly whole events. */
import { SseBatchReader } from '../../lib/streaming/sse-reader';
import { rawChunk } from '../../lib/raw-text';

function batches(chunks: Array<string | Uint8Array>): Array<{ data: string[]; raw: Uint8Array | string | undefined }> {
  const out = [];
  const sse = new SseBatchReader();
  for (const chunk of chunks) {
    const batch = sse.read(chunk);
    if (batch !== undefined) out.push({ data: batch.map((m) => m.data), raw: rawChunk(batch) });
  }
  return out;
}

const ev = (data: string): string => `event: x\ndata: ${data}\n\n`;

it('marks a read of whole events with the very chunk it came in, bytes or text', () => {
  const bytes = new TextEncoder().encode(ev('1') + ev('2'));
  const [first, second] = batches([bytes, ev('3')]);
  expect(first).toEqual({ data: ['1', '2'], raw: bytes });
  expect(first?.raw).toBe(bytes);
  expect(second).toEqual({ data: ['3'], raw: ev('3') });
});

it('does not mark a read that ends or starts inside an event', () => {
  const whole = ev('1') + ev('2');
  const cut = whole.length - 5;
  expect(batches([whole.slice(0, cut), whole.slice(cut), ev('3')])).toEqual([
    { data: ['1'], raw: undefined }, // ends inside the second event
    { data: ['2'], raw: undefined }, // starts inside it
    { data: ['3'], raw: ev('3') }, // whole again
  ]);
});

it('does not mark a read with a comment, an id, a retry or an unknown field', () => {
  const reads = [`: hi\n\n${ev('1')}`, `id: 4\n${ev('2')}`, `retry: 10\n\n${ev('3')}`, `foo: bar\n${ev('4')}`, ev('5')];
  expect((batches(reads)).map((b) => b.raw === undefined)).toEqual([true, true, true, true, false]);
});

it('does not mark a read whose multi-byte character is split from the one before', () => {
  const bytes = new TextEncoder().encode(ev('é') + ev('2'));
  const at = bytes.indexOf(0xc3) + 1; // inside the two bytes of é
  const got = batches([bytes.slice(0, at), bytes.slice(at)]);
  expect(got).toEqual([{ data: ['é', '2'], raw: undefined }]);
});
