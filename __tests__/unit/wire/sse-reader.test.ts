/** SseBatchReader: one batch per read, events split across reads joined, characters split across reads kept whole. */
import { SseBatchReader } from '../../../lib/wire/sse-reader';

function batches(chunks: Array<string | Uint8Array>): string[][] {
  const out: string[][] = [];
  const sse = new SseBatchReader();
  for (const chunk of chunks) {
    const batch = sse.read(chunk);
    if (batch !== undefined) out.push(batch.map((m) => m.data));
  }
  return out;
}

const ev = (data: string): string => `event: x\ndata: ${data}\n\n`;

it('gives the events each read completes, bytes or text', () => {
  expect(batches([new TextEncoder().encode(ev('1') + ev('2')), ev('3')])).toEqual([['1', '2'], ['3']]);
});

it('joins an event split across reads, and gives nothing for a read that completes none', () => {
  const whole = ev('1') + ev('2');
  const cut = whole.length - 5;
  expect(batches([whole.slice(0, cut), whole.slice(cut), 'event: x\nda'])).toEqual([['1'], ['2']]);
});

it('skips comments, ids, retries and unknown fields', () => {
  expect(batches([`: hi\n\n${ev('1')}`, `id: 4\n${ev('2')}`, `retry: 10\n\n${ev('3')}`, `foo: bar\n${ev('4')}`])).toEqual([['1'], ['2'], ['3'], ['4']]);
});

it('keeps a multi-byte character split between reads', () => {
  const bytes = new TextEncoder().encode(ev('é') + ev('2'));
  const at = bytes.indexOf(0xc3) + 1; // inside the two bytes of é
  expect(batches([bytes.slice(0, at), bytes.slice(at)])).toEqual([['é', '2']]);
});
