/** readSseBatches(): one batch per read, marked with its chunk only when the chunk is exactly whole events. */
import { readSseBatches } from '../../lib/streaming/sse-reader';
import { rawChunk } from '../../lib/raw-text';

async function batches(chunks: Array<string | Uint8Array>): Promise<Array<{ data: string[]; raw: Uint8Array | string | undefined }>> {
  const out = [];
  for await (const batch of readSseBatches((async function* () { yield* chunks; })())) out.push({ data: batch.map((m) => m.data), raw: rawChunk(batch) });
  return out;
}

const ev = (data: string): string => `event: x\ndata: ${data}\n\n`;

it('marks a read of whole events with the very chunk it came in, bytes or text', async () => {
  const bytes = new TextEncoder().encode(ev('1') + ev('2'));
  const [first, second] = await batches([bytes, ev('3')]);
  expect(first).toEqual({ data: ['1', '2'], raw: bytes });
  expect(first?.raw).toBe(bytes);
  expect(second).toEqual({ data: ['3'], raw: ev('3') });
});

it('does not mark a read that ends or starts inside an event', async () => {
  const whole = ev('1') + ev('2');
  const cut = whole.length - 5;
  expect(await batches([whole.slice(0, cut), whole.slice(cut), ev('3')])).toEqual([
    { data: ['1'], raw: undefined }, // ends inside the second event
    { data: ['2'], raw: undefined }, // starts inside it
    { data: ['3'], raw: ev('3') }, // whole again
  ]);
});

it('does not mark a read with a comment, an id, a retry or an unknown field', async () => {
  const reads = [`: hi\n\n${ev('1')}`, `id: 4\n${ev('2')}`, `retry: 10\n\n${ev('3')}`, `foo: bar\n${ev('4')}`, ev('5')];
  expect((await batches(reads)).map((b) => b.raw === undefined)).toEqual([true, true, true, true, false]);
});

it('does not mark a read whose multi-byte character is split from the one before', async () => {
  const bytes = new TextEncoder().encode(ev('é') + ev('2'));
  const at = bytes.indexOf(0xc3) + 1; // inside the two bytes of é
  const got = await batches([bytes.slice(0, at), bytes.slice(at)]);
  expect(got).toEqual([{ data: ['é', '2'], raw: undefined }]);
});
