/**
 * The documents a user reads speak to users: no issue numbers, commit hashes, notes to a colleague ("the lead",
 * "not explained yet"), and no character in a code span or block that breaks when pasted (a key, a URL, a command).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { blocks, codeSpans, documents, read, ROOT } from '../helpers/markdown';

const texts = [...documents(), 'CHANGELOG.md', 'SECURITY.md'];
const examples = readdirSync(path.join(ROOT, 'examples')).map((f) => `examples/${f}`);

/** What a development note says and a user's document does not. */
const NOTES: Array<[string, RegExp]> = [
  ['an issue number', /\bissues?\s*#?\d+|(?<![\w.])#\d{2,}\b|\bissues? \d+[–-]\d+/i],
  ['a commit hash', /(?<![\w-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w-])/],
  ['a note that something is unexplained or unfinished', /\bnot (?:yet )?explained(?: yet)?\b|\bnot found yet\b|\byet to be (?:explained|found|done)\b|\bTODO\b|\bFIXME\b|\bTBD\b/i],
  ['a word about the team', /\bthe lead\b|\bthe lead's\b|\bgoal \d+\b/i],
];

it('README, docs, CHANGELOG and SECURITY name no issue, commit, or note to a colleague', () => {
  const found: string[] = [];
  for (const file of texts) {
    read(file).split('\n').forEach((line, i) => {
      for (const [what, pattern] of NOTES) {
        const m = pattern.exec(line);
        if (m) found.push(`${file}:${i + 1}: ${what}: "${m[0]}"`);
      }
    });
  }
  expect(found).toEqual([]);
});

it('the note patterns catch what they are for', () => {
  const caught = (line: string): string[] => NOTES.filter(([, p]) => p.test(line)).map(([what]) => what);
  expect(caught('Fixed (issue 47 goal 5)')).toEqual(['an issue number', 'a word about the team']);
  expect(caught('code at `83fcc60`, before')).toEqual(['a commit hash']);
  expect(caught('fixed in #123; see [§8.4](agent-clients-observed.md#84-model)')).toEqual(['an issue number']);
  expect(caught('not explained yet')).toEqual(['a note that something is unexplained or unfinished']);
  expect(caught('key_dc3c0aa60e921ddcaf1a, sha256 hex, 2026-11-26, 1,099,611, cafe')).toEqual([]);
});

/** Fenced blocks that show what the gateway or a client prints, word for word: read, not pasted. */
const SHOWN = new Set(['text', 'console', 'output']);

/** A code span or block that holds a key, a URL, a header or a command line: what a user pastes. */
const PASTED = /\bsk-|:\/\/|\bBearer\b|^(?:[A-Z][A-Z0-9_]*=\S*\s+)*(?:curl|npx|npm|claude|codex|model-gateway)\s|^export [A-Z]|^[A-Z][A-Z0-9_]*=/;

it('every fenced block but printed output (text), and every code span a user would paste (a key, a URL, a command), is ASCII', () => {
  const found: string[] = [];
  for (const file of texts) {
    const text = read(file);
    for (const block of blocks(text).filter((b) => !SHOWN.has(b.lang))) {
      const bad = /[^\x00-\x7f]/.exec(block.code);
      if (bad) found.push(`${file}:${block.line} (a \`\`\`${block.lang} block under "${block.heading}"): "${bad[0]}" in ${JSON.stringify(block.code.split('\n').find((l) => l.includes(bad[0])))}`);
    }
    for (const span of codeSpans(text)) if (PASTED.test(span) && /[^\x00-\x7f]/.test(span)) found.push(`${file}: \`${span}\``);
  }
  for (const file of examples) {
    const bad = /[^\x00-\x7f]/.exec(read(file));
    if (bad) found.push(`${file}: "${bad[0]}"`);
  }
  expect(found).toEqual([]);
});
