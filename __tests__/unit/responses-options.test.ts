/** The `responses` option: off by default, checked at construction (each message names the option and the fix), resolved for the Responses routes. */
import { anthropicAdapter, MemoryStore, resolveOptions } from '../../lib';
import type { ConfigErrorCode, GatewayOptions, GatewayStore, ModelEntry } from '../../lib';
import { refused } from '../helpers/config-error';

const models: ModelEntry[] = [{ id: 'm', capability: 'llm', upstream: anthropicAdapter({ baseURL: 'http://127.0.0.1:1' }), pricing: { input: 1, output: 2 } }];
const resolve = (responses: unknown, store: GatewayStore = new MemoryStore()) => resolveOptions({ store, models, responses } as GatewayOptions).responses;

const secret = expect.stringMatching(/^[A-Za-z0-9_-]{43}$/); // a random reasoning secret, made for the router

it('is off unless the operator turns it on; the defaults are 30 days and 1 MiB', () => {
  const store = new MemoryStore();
  expect(resolve(undefined, store)).toEqual({ store: undefined, retentionDays: 30, maxBytes: 1_048_576, reasoningSecret: secret });
  expect(resolve({ store: false, retentionDays: 7 }, store)).toEqual({ store: undefined, retentionDays: 7, maxBytes: 1_048_576, reasoningSecret: secret });
});

it('the reasoning secret is the one given (the same on every instance), else a random one for each router', () => {
  const given = 'x'.repeat(32);
  expect(resolve({ reasoningSecret: given }).reasoningSecret).toBe(given);
  expect(resolve(undefined).reasoningSecret).not.toBe(resolve(undefined).reasoningSecret);
});

it("turned on, the routes get the store's own ResponseStore, also when an observer wraps the gateway store", () => {
  const store = new MemoryStore();
  expect(resolve({ store: true, retentionDays: 1, maxBytes: 1024 }, store)).toEqual({ store: store.responses, retentionDays: 1, maxBytes: 1024, reasoningSecret: secret });
  const observed = resolveOptions({ store, models, responses: { store: true }, observers: [{ storeCall: () => undefined }] });
  expect(observed.store).not.toBe(store); // wrapped: it has no `responses`
  expect(observed.responses.store).toBe(store.responses);
  expect(Object.isFrozen(observed.responses)).toBe(true);
});

it.each<[string, ConfigErrorCode, unknown, RegExp]>([
  ['not an object', 'ERR_MGW_INVALID_OPTION', 'yes', /option "responses" must be an object, e\.g\. \{ store: true, retentionDays: 30, maxBytes: 1048576 \}/],
  ['an unknown key', 'ERR_MGW_UNKNOWN_OPTION', { retentionDay: 30 }, /option "responses": unknown option "retentionDay"; did you mean "retentionDays"\?/],
  ['store not a boolean', 'ERR_MGW_INVALID_OPTION', { store: 'on' }, /option "responses.store" must be true or false \(default false\)/],
  ['no days', 'ERR_MGW_INVALID_INTEGER', { retentionDays: 0 }, /option "responses.retentionDays" must be an integer of days from 1 to 3650 \(default 30\), e\.g\. responses: \{ retentionDays: 30 \}/],
  ['a fraction of a day', 'ERR_MGW_INVALID_INTEGER', { retentionDays: 1.5 }, /option "responses.retentionDays" must be an integer of days/],
  ['a tiny bound', 'ERR_MGW_INVALID_INTEGER', { maxBytes: 100 }, /option "responses.maxBytes" must be an integer of bytes from 1024 to 67108864 \(default 1048576\)/],
  ['a bound in words', 'ERR_MGW_INVALID_INTEGER', { maxBytes: '1mb' }, /option "responses.maxBytes" must be an integer of bytes/],
  ['a short reasoning secret', 'ERR_MGW_INVALID_OPTION', { reasoningSecret: 'too-short' }, /option "responses.reasoningSecret" must be a secret of at least 32 characters, the same on every instance/],
  ['a reasoning secret that is not a string', 'ERR_MGW_INVALID_OPTION', { reasoningSecret: 12345 }, /option "responses.reasoningSecret" must be a secret/],
])('refuses %s at construction', (_name, code, responses, message) => {
  expect(() => resolve(responses)).toThrow(refused(code, message));
});

it('refuses to turn storing on over a store that cannot keep responses, naming what is missing and the fix', () => {
  const { responses: _none, ...bare } = Object.fromEntries(['findCaller', 'reserve', 'renewHolds', 'settle', 'release', 'appendLog'].map((m) => [m, () => undefined])) as Record<string, unknown>;
  expect(() => resolve({ store: true }, bare as unknown as GatewayStore)).toThrow(refused(
    'ERR_MGW_STORE_CONTRACT',
    'createGatewayRouter: option "responses.store" is true but the store has no "responses" implementing putResponse, getResponse, deleteResponse, listInputItems, deleteResponsesOf, noteResponse, responseOfRequest, sweepExpiredResponses (MemoryStore and PostgresStore have one; or set responses.store to false).',
  ));
  expect(resolve({ store: false }, bare as unknown as GatewayStore)).toMatchObject({ store: undefined }); // off, such a store serves as before
});
