/** Content parts → content blocks: text, images (data URLs as base64, URLs as they are) and files (data URLs as documents). */
import type { UpstreamFormat } from '../../billing/figures';
import type { ContentBlock, DocumentBlock, ImageBlock, TextBlock } from '../../messages/content';
import { refused } from './errors';
import type { InputPart } from './types';

/** Between the text parts of one prompt message (a system or developer message made one string). */
export const PART_JOIN = '\n';

/** The media type and data of a base64 data URL; undefined for anything else. */
function fromDataUrl(url: string): { media_type: string; data: string } | undefined {
  if (!url.startsWith('data:')) return undefined;
  const marker = url.indexOf(';base64,');
  return marker < 0 ? undefined : { media_type: url.slice(5, marker), data: url.slice(marker + 8) };
}

const TEXT_PARTS = new Set(['input_text', 'output_text', 'text', 'summary_text', 'reasoning_text']);

/** The text of a text-like part (a refusal is its text), else undefined. */
function textOf(part: InputPart): string | undefined {
  if (TEXT_PARTS.has(part.type) && typeof part.text === 'string') return part.text;
  if (part.type === 'refusal' && typeof part.refusal === 'string') return part.refusal;
  return undefined;
}

function imageBlock(part: InputPart, path: string): ImageBlock {
  const url = part.image_url;
  if (typeof url !== 'string' || url === '') throw refused(`${path}.image_url`, 'give the image as a URL or a base64 data URL (uploaded file ids mean nothing upstream)');
  if (!url.startsWith('data:')) return { type: 'image', source: { type: 'url', url } };
  const inline = fromDataUrl(url);
  if (!inline) throw refused(`${path}.image_url`, 'a data URL must be base64 (data:<media type>;base64,<data>)');
  return { type: 'image', source: { type: 'base64', ...inline } };
}

function fileBlock(part: InputPart, path: string, format: UpstreamFormat | undefined): DocumentBlock {
  const title = typeof part.filename === 'string' && part.filename !== '' ? { title: part.filename } : {};
  if (typeof part.file_data === 'string') {
    const inline = fromDataUrl(part.file_data);
    if (!inline) throw refused(`${path}.file_data`, 'must be a base64 data URL (data:application/pdf;base64,<data>)');
    return { type: 'document', source: { type: 'base64', ...inline }, ...title };
  }
  if (typeof part.file_url === 'string' && format === 'anthropic') return { type: 'document', source: { type: 'url', url: part.file_url }, ...title };
  const field = typeof part.file_url === 'string' ? 'file_url' : 'file_id';
  throw refused(`${path}.${field}`, field === 'file_url' ? 'files by URL reach Anthropic-format upstreams only; send file_data' : 'send the file as file_data (uploaded file ids mean nothing upstream)');
}

/** The block of one part (undefined for empty text, which the upstreams refuse); what the content model cannot carry is refused, naming `path`. */
export function blockOfPart(part: InputPart, path: string, format: UpstreamFormat | undefined): ContentBlock | undefined {
  const text = textOf(part);
  if (text !== undefined) return text === '' ? undefined : ({ type: 'text', text } satisfies TextBlock);
  if (part.type === 'input_image') return imageBlock(part, path);
  if (part.type === 'input_file') return fileBlock(part, path, format);
  throw refused(`${path}.type`, `the Messages format has no "${String(part.type).slice(0, 64)}" part`);
}

/** The blocks of a message's content (a string is one text block). */
export function blocksOf(content: string | InputPart[] | null | undefined, path: string, format: UpstreamFormat | undefined): ContentBlock[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const out: ContentBlock[] = [];
  (content ?? []).forEach((part, j) => {
    const block = blockOfPart(part, `${path}.${j}`, format);
    if (block) out.push(block);
  });
  return out;
}

/** The text of a prompt message (system, developer), its parts joined by a line break; any other part is refused. */
export function promptTextOf(content: string | InputPart[] | null | undefined, path: string): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((part, j) => {
    const text = textOf(part);
    if (text === undefined) throw refused(`${path}.${j}.type`, 'a system or developer message at the start holds text only');
    return text;
  }).join(PART_JOIN);
}
