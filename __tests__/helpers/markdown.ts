/** Reads the user-facing documents as a reader meets them: fenced blocks under their headings, code spans, links and anchors. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.join(__dirname, '..', '..');

/** README.md and docs/*.md, relative to the root. */
export function documents(): string[] {
  return ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
}

export const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');

export interface Block {
  /** The fence's language (`ts`, `sh`…), '' for none. */
  lang: string;
  /** The block's text, without its fences and without the indentation of a fence inside a list. */
  code: string;
  /** The nearest heading above it (its text as written after the #s). */
  heading: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** Every fenced block of a markdown text, with the heading it stands under. */
export function blocks(markdown: string): Block[] {
  const found: Block[] = [];
  const lines = markdown.split('\n');
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})\s*([\w-]*)\s*$/.exec(lines[i] as string);
    if (!open) {
      const h = /^#{1,6}\s+(.*?)\s*$/.exec(lines[i] as string);
      if (h) heading = h[1] as string;
      continue;
    }
    const [, indent = '', fence = '', lang = ''] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !new RegExp(`^\\s*${fence}\\s*$`).test(lines[j] as string); j++) body.push((lines[j] as string).startsWith(indent) ? (lines[j] as string).slice(indent.length) : (lines[j] as string));
    found.push({ lang, code: `${body.join('\n')}\n`, heading, line: i + 1 });
    i = j;
  }
  return found;
}

/** The text outside fenced blocks (prose, headings, tables), blocks replaced by empty lines so line numbers hold. */
export function prose(markdown: string): string {
  return markdown.replace(/^([ \t]*)(`{3,})[^\n]*\n[\s\S]*?^[ \t]*\2[ \t]*$/gm, (block) => block.replace(/[^\n]/g, ''));
}

/** Inline code spans of the prose. */
export function codeSpans(markdown: string): string[] {
  return [...prose(markdown).matchAll(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g)].map((m) => m[2] as string);
}

/** The targets of inline links `[text](target)` and images in the prose. */
export function links(markdown: string): string[] {
  const text = prose(markdown).replace(/(`+)[\s\S]*?\1/g, ''); // a code span's brackets are not links
  return [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] as string);
}

/** A heading's anchor as GitHub makes it: the text as shown, lower-cased, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  const shown = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '').replace(/<[^>]+>/g, '');
  return shown.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** Every anchor a document has: its headings' slugs (repeats numbered -1, -2… as GitHub does) and explicit `id`/`name` anchors. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const m of prose(markdown).matchAll(/^#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$/gm)) {
    const base = slug(m[1] as string);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const m of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(m[1] as string);
  return found;
}
