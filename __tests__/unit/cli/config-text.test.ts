/** lib/cli/config-text.ts: a misspelt key named with the one it likely meant, before the schema; a YAML error said whole. */
import { parse } from 'yaml';
import { configSchema } from '../../../lib/cli/config-schema';
import { ConfigError } from '../../../lib/cli/config-error';
import { closestKey, unknownKeys, yamlError } from '../../../lib/cli/config-text';

describe('closestKey()', () => {
  it('finds a key two edits away at most (a swap is one), and nothing for a word unlike any', () => {
    const top = Object.keys(configSchema.properties);
    expect(closestKey('modles', top)).toBe('models');
    expect(closestKey('upstream', top)).toBe('upstreams');
    expect(closestKey('Admin', top)).toBe('admin');
    expect(closestKey('colour', top)).toBeUndefined();
    expect(closestKey('ab', ['cd'])).toBeUndefined(); // two edits of two letters is no likeness
  });
});

describe('unknownKeys()', () => {
  const refusal = (value: unknown): string => {
    try {
      unknownKeys(value, configSchema);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    return 'accepted';
  };

  it('names a key no section has, with the one meant, at any depth: sections, models, upstreams by name, admin tokens', () => {
    expect(refusal({ modles: [] })).toBe('modles: unknown key; did you mean "models"? (allowed here: server, store, redis, limits, upstreams, models, admin, metrics, health, logging, responses)');
    expect(refusal({ models: [{ id: 'm' }, { id: 'n', agentReday: true }] })).toMatch(/^models\[1\]\.agentReday: unknown key; did you mean "agentReady"\? \(allowed here: id, /);
    expect(refusal({ upstreams: { mine: { type: 'openai', baseUrl: 'x' } } })).toMatch(/^upstreams\.mine\.baseUrl: unknown key; did you mean "baseURL"\?/);
    expect(refusal({ admin: { tokens: [{ name: 'a', role: 'x' }] } })).toMatch(/^admin\.tokens\[0\]\.role: unknown key; remove it or fix its spelling \(allowed here: name, token, access\)$/);
    expect(refusal({ health: { live: '/l', redy: '/r' } })).toMatch(/^health\.redy: unknown key; did you mean "ready"\?/);
  });

  it('leaves known keys, values of other types and inherited names to the schema', () => {
    expect(refusal({ models: [{ id: 'm', capability: 'llm' }], upstreams: { constructor: { type: 'tei' } }, health: false, server: '${SERVER}' })).toBe('accepted');
    expect(refusal(JSON.parse('{"__proto__": {}}'))).toMatch(/^__proto__: unknown key/);
  });
});

describe('yamlError()', () => {
  const errorOf = (text: string): unknown => {
    try {
      parse(text);
    } catch (err) {
      return err;
    }
    throw new Error('parsed');
  };

  it('keeps what is wrong, where, and the lines it points at, indented; a bare ${VAR} in { … } gets the cause', () => {
    expect(yamlError(errorOf('a: { b: ${X} }\n')).split('\n')).toEqual([
      expect.stringMatching(/ at line 1, column \d+:$/),
      '    a: { b: ${X} }',
      expect.stringMatching(/^ {4} +\^$/),
      '(inside { ... }, quote a reference: "${NAME}")',
    ]);
    const tabs = yamlError(errorOf('models:\n\t- x\n'));
    expect(tabs.split('\n')[0]).toMatch(/^Tabs are not allowed as indentation at line 2, column 1:$/);
    expect(tabs).not.toContain('quote a reference');
    expect(yamlError(new Error('one line'))).toBe('one line');
  });
});
