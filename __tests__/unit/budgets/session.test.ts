/** The session and subagent a request names, read from what clients already send, in a fixed order of trust. */
import { agentOf, normaliseId, sessionOf } from '../../../lib/budgets/session';

describe('sessionOf', () => {
  it('takes the first named source: x-session-id, Claude Code\'s header, Codex\'s, then the body\'s prompt_cache_key, safety_identifier, user', () => {
    const all = { 'x-session-id': 'explicit', 'x-claude-code-session-id': 'cc', 'session-id': 'codex', session_id: 'codex2' };
    const body = { prompt_cache_key: 'pck', safety_identifier: 'safe', user: 'u' };
    expect(sessionOf(all, body)).toEqual({ id: 'explicit', source: 'x-session-id' });
    expect(sessionOf({ ...all, 'x-session-id': undefined }, body)).toEqual({ id: 'cc', source: 'x-claude-code-session-id' });
    expect(sessionOf({ 'session-id': 'codex' }, body)).toEqual({ id: 'codex', source: 'session-id' });
    expect(sessionOf({ session_id: 'codex2' }, body)).toEqual({ id: 'codex2', source: 'session_id' });
    expect(sessionOf({}, body)).toEqual({ id: 'pck', source: 'prompt_cache_key' });
    expect(sessionOf({}, { safety_identifier: 'safe', user: 'u' })).toEqual({ id: 'safe', source: 'safety_identifier' });
    expect(sessionOf({}, { user: 'u' })).toEqual({ id: 'u', source: 'user' });
  });

  it('names none when nothing is sent, or only blanks and values that are not text', () => {
    expect(sessionOf({}, undefined)).toBeUndefined();
    expect(sessionOf({ 'x-session-id': '  ' }, { prompt_cache_key: 42, user: '' })).toBeUndefined();
  });
});

describe('normaliseId', () => {
  it('keeps a short printable id, and names a long or odd one by its digest', () => {
    expect(normaliseId(' 7f3e-a1 ')).toBe('7f3e-a1');
    expect(normaliseId('x'.repeat(129))).toMatch(/^sha256:[0-9a-f]{32}$/);
    expect(normaliseId('has space')).toMatch(/^sha256:/);
    expect(normaliseId('é')).toBe(normaliseId('é'));
    expect(normaliseId('a/b')).toBe('a/b');
  });
});

describe('agentOf', () => {
  it('reads x-agent-id, else Claude Code\'s x-claude-code-agent-id', () => {
    expect(agentOf({ 'x-claude-code-agent-id': 'sub-1' })).toBe('sub-1');
    expect(agentOf({ 'x-agent-id': 'a', 'x-claude-code-agent-id': 'b' })).toBe('a');
    expect(agentOf({})).toBeUndefined();
  });
});
