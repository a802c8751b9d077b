/** resultListText() gives exactly the member JSON.parse read, in the answer's shape, or declines. */
import fc from 'fast-check';
import { resultListText } from '../../lib/upstreams/rerank-http';

type Item = { index: number; relevance_score: number };
const SPELLINGS = ['canonical', 'float-index', 'reversed', 'extra', 'duplicate-key', 'spaced'] as const;
const BODIES = ['plain', 'escaped-key', 'nested-first', 'spaced-key', 'string-value', 'duplicate-member', 'bracket-in-string'] as const;

const num = (n: number): string => JSON.stringify(n);
function itemText({ index, relevance_score: s }: Item, spelling: (typeof SPELLINGS)[number]): string {
  switch (spelling) {
    case 'canonical': return JSON.stringify({ index, relevance_score: s });
    case 'float-index': return `{"index":${index}.0,"relevance_score":${num(s)}}`;
    case 'reversed': return `{"relevance_score":${num(s)},"index":${index}}`;
    case 'extra': return `{"index":${index},"relevance_score":${num(s)},"document":{"text":"x]"}}`;
    case 'duplicate-key': return `{"index":${index + 1},"index":${index},"relevance_score":${num(s)}}`;
    case 'spaced': return `{"index": ${index},"relevance_score":${num(s)}}`;
  }
}

/** A body whose top-level `results` is `list`, with a decoy list elsewhere for some shapes. */
function bodyText(list: string, shape: (typeof BODIES)[number]): string {
  const decoy = '[{"index":0,"relevance_score":0.5}]';
  switch (shape) {
    case 'plain': return `{"id":"x","results":${list},"meta":{"billed_units":{"search_units":1}}}`;
    case 'escaped-key': return `{"r\\u0065sults":${list},"meta":{"results":${decoy}}}`;
    case 'nested-first': return `{"meta":{"results":${decoy}},"results":${list}}`;
    case 'spaced-key': return `{"meta":{"results":${decoy}},"results" :${list}}`;
    case 'string-value': return `{"note":"results","results":${list}}`;
    case 'duplicate-member': return `{"results":${decoy},"results":${list}}`;
    case 'bracket-in-string': return `{"id":"]","results":${list},"note":"]"}`;
  }
}

const item = fc.record({ index: fc.nat(1000), relevance_score: fc.double({ noNaN: true, noDefaultInfinity: true }) });
const spelled = fc.array(fc.tuple(item, fc.constantFrom(...SPELLINGS), fc.boolean()), { maxLength: 8 });

it('returns the text of the very list JSON.parse read, with only canonical {index, relevance_score} items, or undefined', () => {
  fc.assert(fc.property(spelled, fc.constantFrom(...BODIES), (items, shape) => {
    // Most items canonical, so that lists which may be forwarded are common.
    const list = `[${items.map(([it, spelling, plain]) => itemText(it, plain ? 'canonical' : spelling)).join(',')}]`;
    const body = bodyText(list, shape);
    const parsed = (JSON.parse(body) as { results: Item[] }).results;
    const out = resultListText(body, 'results');
    if (out === undefined) return;
    const read = JSON.parse(out) as Item[];
    expect(read).toEqual(parsed);
    for (const r of read) expect(Object.keys(r)).toEqual(['index', 'relevance_score']);
    expect(out.match(/"index":[^,]*/g) ?? []).toEqual(read.map((r) => `"index":${r.index}`));
  }), { numRuns: 3000 });
});

it('takes a compact canonical list whatever its scores, and only at the top level', () => {
  fc.assert(fc.property(fc.array(item, { maxLength: 100 }), (items) => {
    const list = JSON.stringify(items);
    expect(resultListText(bodyText(list, 'plain'), 'results')).toBe(list);
    expect(resultListText(bodyText(list, 'bracket-in-string'), 'results')).toBe(list);
  }));
  const list = '[{"index":1,"relevance_score":0.9}]';
  expect(resultListText(`{"object":"list","data":${list}}`, 'data')).toBe(list);
  expect(resultListText(`{"r\\u0065sults":${list},"meta":{"results":[]}}`, 'results')).toBeUndefined();
  expect(resultListText(`{"meta":{"results":[]},"results":${list}}`, 'results')).toBeUndefined();
  expect(resultListText(`{"results": ${list}}`, 'results')).toBeUndefined();
  expect(resultListText('{"results":[{"index":1.0,"relevance_score":0.9}]}', 'results')).toBeUndefined();
  expect(resultListText('{"results":[{"index":01,"relevance_score":0.9}]}', 'results')).toBeUndefined();
  expect(resultListText('{"results":[{"index":1,"relevance_score":0.9},]}', 'results')).toBeUndefined();
  expect(resultListText('{"results":[{"index":1,"relevance_score":0.9}', 'results')).toBeUndefined();
});
