/** The echoed tools' JSON, reused across requests (echo-json.ts), must be JSON.stringify's bytes of the tools given now, however they differ or change. */
import fc from 'fast-check';
import { toolsJson } from '../../../../lib/formats/openai-responses/echo-json';
import { ResponseEnvelope } from '../../../../lib/formats/openai-responses/response';
import type { ResponsesPlan } from '../../../../lib/formats/openai-responses/request';

const tool = fc.record({ type: fc.constantFrom('function', 'custom'), name: fc.string({ unit: 'binary', maxLength: 8 }), parameters: fc.jsonValue({ maxDepth: 3 }) });
const tools = fc.array(tool, { minLength: 1, maxLength: 4 });
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

it('writes any tools as JSON.stringify does, the same tools again (a new copy, as each request parses them) and after a change', () => {
  fc.assert(fc.property(fc.array(tools, { minLength: 1, maxLength: 20 }), fc.nat(30), fc.jsonValue({ maxDepth: 1 }), (sets, pick, changed) => {
    for (const set of [...sets, ...sets]) expect(toolsJson(clone(set))).toBe(JSON.stringify(set));
    const edited = clone(sets[pick % sets.length] as object[]) as Array<Record<string, unknown>>;
    (edited[0] as Record<string, unknown>).parameters = changed; // the same array, one value changed
    expect(toolsJson(edited)).toBe(JSON.stringify(edited));
    (edited[0] as Record<string, unknown>).extra = undefined; // a field JSON leaves out
    expect(toolsJson(edited)).toBe(JSON.stringify(edited));
  }), { numRuns: 300 });
});

it('serialises values a copy cannot equal as JSON.stringify does: -0, NaN, undefined, holes, toJSON, class instances, key order', () => {
  const base = [{ type: 'function', name: 'a', parameters: { x: 1, y: [1, 2] } }];
  toolsJson(clone(base));
  class Schema { x = 1; y = [1, 2]; toJSON(): string { return 'schema'; } }
  const sparse = [1, 2];
  delete sparse[1];
  for (const parameters of [{ x: -0, y: [1, 2] }, { x: NaN, y: [1, 2] }, { x: 1, y: [1, undefined] }, { x: 1, y: sparse }, new Schema(), { y: [1, 2], x: 1 },
    { x: 1, y: [1, 2], toJSON: () => 'replaced' }, { x: new Date(0), y: [1, 2] }, { x: 1, y: Object.assign([1, 2], { toJSON: () => 'array' }) }]) {
    const edited = [{ type: 'function', name: 'a', parameters }];
    expect(toolsJson(edited)).toBe(JSON.stringify(edited));
  }
});

it('splices the tools into a response exactly where JSON.stringify puts them, a marker-like string of the request included', () => {
  const echoes = [
    { instructions: 'x', tools: [{ type: 'function', name: 'a' }], tool_choice: 'auto' },
    { instructions: '\u0000mgw-tools', tools: [{ type: 'function', name: 'a' }], tool_choice: 'auto' },
    { instructions: null, tools: [{ type: 'function', name: '\u0000mgw-tools' }], metadata: { '\u0000mgw-tools': '\u0000mgw-tools' } },
    { instructions: null, tools: [], tool_choice: 'auto' },
  ];
  for (const echo of echoes) {
    const envelope = new ResponseEnvelope({ echo } as unknown as ResponsesPlan, 'resp_1', 'm', 1);
    const response = envelope.object('completed', [], { input_tokens: 1, output_tokens: 2 });
    expect(envelope.json(response)).toBe(JSON.stringify(response));
  }
});
