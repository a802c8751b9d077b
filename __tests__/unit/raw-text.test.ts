/** renamedModel() gives exactly what re-serialising would, or declines; startsAt() answers as startsWith. */
import fc from 'fast-check';
import { renamedModel, startsAt } from '../../lib/raw-text';

const name = fc.oneof(fc.constantFrom('m', 'model', 'claude-sonnet-4-5', 'é"\\\u2028'), fc.string());
/** Messages whose other members may hold "model" as a nested key or a string value. */
const message = fc.record({
  id: fc.string(),
  model: name,
  content: fc.array(fc.record({ type: fc.constant('text'), text: fc.oneof(fc.string(), fc.constant('model'), fc.constant('"model":"m"')) })),
  meta: fc.option(fc.dictionary(fc.constantFrom('model', 'x'), fc.oneof(fc.string(), name)), { nil: undefined }),
});

it('is undefined or equal to re-serialising with the new name, for any message and spelling', () => {
  fc.assert(fc.property(message, name, fc.constantFrom(undefined, 2), fc.boolean(), (msg, to, indent, metaFirst) => {
    const { meta, ...rest } = msg;
    const text = JSON.stringify(metaFirst ? { meta, ...rest } : { ...rest, meta }, null, indent);
    const out = renamedModel(text, msg.model, to);
    if (out !== undefined) expect(JSON.parse(out)).toEqual({ ...JSON.parse(text), model: to });
  }), { numRuns: 2000 });
});

it('renames the usual compact answer, and declines a nested "model", a "model" value or spaces', () => {
  expect(renamedModel('{"id":"a","model":"m","usage":{}}', 'm', 'pub')).toBe('{"id":"a","model":"pub","usage":{}}');
  expect(renamedModel('{"model":"m","meta":{"model":"m"}}', 'm', 'pub')).toBeUndefined();
  expect(renamedModel('{"model":"m","content":[{"text":"model"}]}', 'm', 'pub')).toBeUndefined();
  expect(renamedModel('{"model": "m"}', 'm', 'pub')).toBeUndefined();
  expect(renamedModel('{"model":"other"}', 'm', 'pub')).toBeUndefined();
});

test('startsAt answers as startsWith, at every position in and past the text', () => {
  fc.assert(fc.property(fc.string(), fc.string({ maxLength: 4 }), fc.nat(12), (text, part, at) => {
    expect(startsAt(text, part, at)).toBe(text.startsWith(part, at));
    const inside = text.slice(at % (text.length + 1), (at % (text.length + 1)) + part.length + 1);
    expect(startsAt(text, inside, at % (text.length + 1))).toBe(true);
  }));
  expect(startsAt('abc', 'bc', 1)).toBe(true);
  expect(startsAt('abc', 'bcd', 1)).toBe(false);
  expect(startsAt('abc', '', 3)).toBe(true);
});
