/** lib/upstreams/http/shown.ts: an upstream's words reach a client without URLs or upstream hosts; its OpenAI terms only when they are a field path and a code. */
import { knowHost, termsOf, withoutHosts } from '../../../../lib/upstreams/http/shown';

it('writes every URL as [url], every known upstream host and every IP address as [host], and keeps the rest', () => {
  knowHost('https://llm.internal.example:8443/v1');
  knowHost('http://vllm:8000');
  expect(withoutHosts('failed on http://10.0.0.7:8000/v1/messages.')).toBe('failed on [url].');
  expect(withoutHosts('see https://docs.example.com/errors?x=1, then retry')).toBe('see [url], then retry');
  expect(withoutHosts('host llm.internal.example:8443 and LLM.INTERNAL.EXAMPLE said no')).toBe('host [host] and [host] said no');
  expect(withoutHosts('vllm:8000 refused; vllm is busy')).toBe('[host] refused; vllm is busy'); // a bare name is a word: known with its port only
  expect(withoutHosts('from 192.168.1.20 and [::1]:8080 and [2001:db8::7]')).toBe('from [host] and [host] and [host]');
  expect(withoutHosts('messages.0.content: include[0] is bad (10 tokens > 8.5)')).toBe('messages.0.content: include[0] is bad (10 tokens > 8.5)');
});

it('keeps a param that is a field path and a code that is a code; anything else is left out', () => {
  expect(termsOf({ error: { param: 'include[0]', code: 'invalid_value' } })).toEqual({ param: 'include[0]', code: 'invalid_value' });
  expect(termsOf({ error: { param: 'tools.0.type', code: null } })).toEqual({ param: 'tools.0.type' });
  expect(termsOf({ error: { param: 'http://10.0.0.1/x', code: 'see the logs' } })).toBeUndefined();
  expect(termsOf({ error: { param: '10.0.0.1', code: 'x'.repeat(65) } })).toBeUndefined();
  expect(termsOf({ error: { param: 7, code: ['a'] } })).toBeUndefined();
  for (const body of [null, 'text', {}, { error: null }]) expect(termsOf(body)).toBeUndefined();
});
