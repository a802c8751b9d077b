/** lib/upstreams/providers: each adapter's option checks (by code) and the endpoint its base URL resolves to. */
import { anthropicAdapter, cohereAdapter, jinaAdapter, openaiChatAdapter, openaiResponsesAdapter, teiAdapter, voyageAdapter } from '../../../../lib';
import { baseVersion } from '../../../../lib/upstreams/http/options';
import { refused } from '../../../helpers/config-error';

describe('base-URL resolution', () => {
  it.each([
    ['https://api.anthropic.com', 'https://api.anthropic.com/v1/messages'],
    ['https://api.anthropic.com/', 'https://api.anthropic.com/v1/messages'],
    ['https://api.anthropic.com/v1', 'https://api.anthropic.com/v1/messages'],
    ['https://gw.example/anthropic/v1//', 'https://gw.example/anthropic/v1/messages'],
  ])('anthropicAdapter at %s calls %s', (baseURL, endpoint) => {
    expect(anthropicAdapter({ baseURL, apiKey: 'k' }).endpoint).toBe(endpoint);
  });

  it('gives the version segment once for OpenAI-compatible bases (vLLM serves under /v1)', () => {
    expect(openaiChatAdapter({ baseURL: 'http://host:8000/v1', apiKey: 'k' }).endpoint).toBe('http://host:8000/v1/chat/completions');
    expect(openaiResponsesAdapter({ baseURL: 'https://api.openai.com', apiKey: 'k' }).endpoint).toBe('https://api.openai.com/v1/responses');
    expect(openaiChatAdapter({ baseURL: 'http://host/v1', apiKey: 'k', path: '/chat' }).endpoint).toBe('http://host/v1/chat');
  });

  it('reads the version segment a base URL ends with', () => {
    expect(baseVersion('https://api.cohere.com/v1/')).toBe('v1');
    expect(baseVersion('https://api.cohere.com')).toBeUndefined();
  });

  it("picks Cohere's API version from the base URL, and refuses a conflicting one", () => {
    expect(cohereAdapter({ baseURL: 'https://api.cohere.com/v1', apiKey: 'k' }).endpoint).toBe('https://api.cohere.com/v1/rerank');
    expect(cohereAdapter({ baseURL: 'https://api.cohere.com', apiKey: 'k' }).endpoint).toBe('https://api.cohere.com/v2/rerank');
    expect(() => cohereAdapter({ baseURL: 'https://api.cohere.com/v1', apiKey: 'k', apiVersion: 'v2' })).toThrow(refused('ERR_MGW_CONFLICTING_OPTIONS'));
  });
});

describe('option checks', () => {
  const every = { anthropicAdapter, openaiChatAdapter, openaiResponsesAdapter, cohereAdapter, jinaAdapter, voyageAdapter, teiAdapter };
  it.each(Object.entries(every))('%s refuses a baseURL that is no http(s) URL, an unknown option and a bad timeout', (_name, make) => {
    const build = make as (o: object) => unknown;
    expect(() => build({ baseURL: 'api.example.com' })).toThrow(refused('ERR_MGW_INVALID_OPTION', 'baseURL'));
    expect(() => build({ baseURL: 'https://x', apiKy: 'k' })).toThrow(refused('ERR_MGW_UNKNOWN_OPTION'));
    expect(() => build({ baseURL: 'https://x', timeouts: { idleMs: -1 } })).toThrow(refused('ERR_MGW_INVALID_DURATION'));
    expect(() => build({ baseURL: 'https://x', maxResponseBytes: 0 })).toThrow(refused('ERR_MGW_INVALID_INTEGER'));
  });

  it("checks each adapter's own options", () => {
    expect(() => openaiChatAdapter({ baseURL: 'https://x', maxTokensField: 'tokens' as never })).toThrow(refused('ERR_MGW_INVALID_OPTION', 'maxTokensField'));
    expect(() => cohereAdapter({ baseURL: 'https://x', apiVersion: 'v3' as never })).toThrow(refused('ERR_MGW_INVALID_OPTION', 'apiVersion'));
  });

  it('names the adapter by its provider unless told otherwise', () => {
    expect(anthropicAdapter({ baseURL: 'https://x' }).name).toBe('anthropic');
    expect(openaiChatAdapter({ baseURL: 'https://x', name: 'vllm' }).name).toBe('vllm');
  });
});
