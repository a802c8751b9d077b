/** Every relative link of README.md and docs/*.md reaches a file of the repository, and every anchor a heading of its target. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { anchors, documents, links, read, ROOT, slug } from '../helpers/markdown';

it('GitHub\'s anchors are computed as GitHub computes them', () => {
  expect(slug('Errors on the OpenAI routes (chat completions and Responses)')).toBe('errors-on-the-openai-routes-chat-completions-and-responses');
  expect(slug('The Responses API (`/v1/responses`)')).toBe('the-responses-api-v1responses');
  expect(slug('Create a key — `POST /keys` → 201')).toBe('create-a-key--post-keys--201');
  expect([...anchors('# A\n## B\n## B\n```\n# not a heading\n```\n')]).toEqual(['a', 'b', 'b-1']);
});

it('every relative link and anchor in README.md and docs/*.md resolves', () => {
  const dead: string[] = [];
  let checked = 0;
  for (const doc of documents()) {
    for (const target of links(read(doc))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      checked++;
      const [file = '', anchor] = target.split('#');
      const resolved = file === '' ? doc : path.posix.normalize(path.posix.join(path.posix.dirname(doc), file));
      if (!existsSync(path.join(ROOT, resolved))) { dead.push(`${doc}: ${target} (no file ${resolved})`); continue; }
      if (anchor !== undefined && !(resolved.endsWith('.md') && anchors(read(resolved)).has(anchor))) dead.push(`${doc}: ${target} (no heading #${anchor} in ${resolved})`);
    }
  }
  expect(checked).toBeGreaterThan(50);
  expect(dead).toEqual([]);
});
