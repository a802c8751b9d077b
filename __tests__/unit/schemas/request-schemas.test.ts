/** lib/schemas: each request schema takes a minimal valid body and names the field of a bad one; the unsupported-field finders name theirs. */
import { compileSchema, describeError } from '../../../lib/schemas/ajv';
import { agentCountTokensSchema, agentMessagesSchema, tooDeep } from '../../../lib/schemas/agent';
import { agentChatSchema, findUnsupportedAgentChat } from '../../../lib/schemas/agent-chat';
import { chatSchema, findUnsupportedChat } from '../../../lib/schemas/chat';
import { countTokensSchema, findUnsupported, messagesSchema } from '../../../lib/schemas/messages';
import { DEFAULT_RERANK_BOUNDS, rerankSchema } from '../../../lib/schemas/rerank';
import { findRefusedResponses, findUnsupportedResponsesV1, responsesSchema } from '../../../lib/schemas/responses';

/** The first problem the schema finds in `body`, in the gateway's wording; undefined when it passes. */
function problemOf(schema: object, body: unknown): string | undefined {
  const check = compileSchema(schema);
  if (check(body)) return undefined;
  return check.errors?.[0] ? describeError(check.errors[0]) : 'invalid';
}

const turn = [{ role: 'user', content: 'hi' }];
const SCHEMAS: Array<[string, object, object, object, string]> = [
  ['messages', messagesSchema, { model: 'm', max_tokens: 1, messages: turn }, { model: 'm', max_tokens: 'one', messages: turn }, 'max_tokens: must be integer'],
  ['count_tokens', countTokensSchema, { model: 'm', messages: turn }, { model: 'm' }, 'messages: Field required'],
  ['agent messages', agentMessagesSchema, { model: 'm', max_tokens: 1, messages: turn, tools: [] }, { model: 'm', messages: turn }, 'max_tokens: Field required'],
  ['agent count_tokens', agentCountTokensSchema, { model: 'm', messages: turn }, { messages: turn }, 'model: Field required'],
  ['chat', chatSchema, { model: 'm', messages: turn }, { model: 'm', messages: [{ role: 'wizard', content: 'hi' }] }, 'messages.0.role'],
  ['agent chat', agentChatSchema, { model: 'm', messages: turn }, { model: 'm', messages: 'hi' }, 'messages: must be array'],
  ['rerank', rerankSchema(DEFAULT_RERANK_BOUNDS), { model: 'r', query: 'q', documents: ['a'] }, { model: 'r', query: 'q' }, 'documents: Field required'],
  ['responses', responsesSchema, { model: 'm', input: 'hi' }, { model: 'm', input: 7 }, 'input: must be string or array'],
];

describe('the request schemas', () => {
  it.each(SCHEMAS)('%s takes a minimal body', (_name, schema, good) => {
    expect(problemOf(schema, good)).toBeUndefined();
  });

  it.each(SCHEMAS)('%s names the bad field', (_name, schema, _good, bad, named) => {
    expect(problemOf(schema, bad)).toMatch(new RegExp(`^${named.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });

  it('bounds rerank bodies by the bounds given', () => {
    const small = rerankSchema({ ...DEFAULT_RERANK_BOUNDS, maxDocuments: 1 });
    expect(problemOf(small, { model: 'r', query: 'q', documents: ['a', 'b'] })).toMatch(/^documents/);
  });
});

describe('the unsupported-field finders', () => {
  it("name what V1 Messages and chat refuse, and pass a plain body", () => {
    expect(findUnsupported({ model: 'm', max_tokens: 1, messages: turn, tools: [{}] })).toMatchObject({ path: 'tools' });
    expect(findUnsupported({ model: 'm', max_tokens: 1, messages: turn })).toBeUndefined();
    expect(findUnsupportedChat({ model: 'm', messages: turn, n: 2 })).toMatchObject({ path: 'n' });
    expect(findUnsupportedChat({ model: 'm', messages: turn })).toBeUndefined();
    expect(findUnsupportedAgentChat({ model: 'm', messages: turn })).toBeUndefined();
  });

  it('name what the Responses route refuses on every model, and what V1 refuses', () => {
    expect(findRefusedResponses({ model: 'm', input: 'hi', background: true })).toMatchObject({ path: 'background' });
    expect(findRefusedResponses({ model: 'm', input: 'hi' })).toBeUndefined();
    expect(findUnsupportedResponsesV1({ model: 'm', input: [{ type: 'function_call' }] })).toMatchObject({ path: 'input.0.type' });
    expect(findUnsupportedResponsesV1({ model: 'm', input: 'hi' })).toBeUndefined();
  });

  it('finds nesting deeper than the bound, by path', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 5; i++) deep = { a: deep };
    expect(tooDeep(deep, 3)).toBeDefined();
    expect(tooDeep({ a: { b: 1 } }, 3)).toBeUndefined();
  });
});
