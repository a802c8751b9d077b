/** Content both ways: text, images (base64 ⇄ data URLs, URLs as they are) and PDFs (documents ⇄ file parts). */
import { isBlock, type ContentBlock, type DocumentBlock, type ImageBlock, type TextBlock } from '../../messages/content';
import { cannotExpress, objectAt, PROMPT_JOIN, stringAt } from './tables';
import type { ChatPart } from './types';

/** `data:<media type>;base64,<data>`. */
const dataUrl = (mediaType: string, data: string): string => `data:${mediaType};base64,${data}`;

/** The media type and data of a base64 data URL; undefined for any other URL. */
function fromDataUrl(url: string): { media_type: string; data: string } | undefined {
  if (!url.startsWith('data:')) return undefined;
  const marker = url.indexOf(';base64,');
  if (marker < 0) return undefined;
  return { media_type: url.slice(5, marker), data: url.slice(marker + 8) };
}

/**
 * The OpenAI parts of a prompt block (a user turn's or a tool result's): text, an image (base64 as
 * a data URL, a URL as it is), a PDF as a file part, a text document as text. Anything else is
 * refused, naming `path`: an uploaded file's id, a document by URL, tool and server blocks.
 */
export function partsOf(block: ContentBlock, path: string): ChatPart[] {
  const type = stringAt(objectAt(block, path).type, `${path}.type`);
  if (isBlock(block, 'text')) return [{ type: 'text', text: stringAt(block.text, `${path}.text`) }];
  if (isBlock(block, 'image')) {
    const source = objectAt(block.source, `${path}.source`);
    if (source.type === 'base64') return [{ type: 'image_url', image_url: { url: dataUrl(stringAt(source.media_type, `${path}.source.media_type`), stringAt(source.data, `${path}.source.data`)) } }];
    if (source.type === 'url') return [{ type: 'image_url', image_url: { url: stringAt(source.url, `${path}.source.url`) } }];
    throw cannotExpress(`${path}.source.type`, `an OpenAI-format upstream takes images as base64 or URLs, not "${String(source.type).slice(0, 64)}"`);
  }
  if (isBlock(block, 'document')) return documentParts(block, path);
  throw cannotExpress(`${path}.type`, `an OpenAI-format upstream cannot take a "${type.slice(0, 64)}" block here`);
}

function documentParts(block: DocumentBlock, path: string): ChatPart[] {
  const source = objectAt(block.source, `${path}.source`);
  if (source.type === 'base64' && source.media_type === 'application/pdf') {
    const filename = typeof block.title === 'string' ? block.title : 'document.pdf';
    return [{ type: 'file', file: { filename, file_data: dataUrl(source.media_type, stringAt(source.data, `${path}.source.data`)) } }];
  }
  if (source.type === 'text') return [{ type: 'text', text: stringAt(source.data, `${path}.source.data`) }];
  if (source.type === 'content') {
    if (typeof source.content === 'string') return [{ type: 'text', text: source.content }];
    if (!Array.isArray(source.content)) throw cannotExpress(`${path}.source.content`, 'must be a string or an array of blocks');
    return (source.content as ContentBlock[]).flatMap((b, i) => partsOf(b, `${path}.source.content.${i}`));
  }
  throw cannotExpress(`${path}.source.type`, `an OpenAI-format upstream takes documents as base64 PDFs, text or content, not "${String(source.type).slice(0, 64)}"`);
}

/** The text of a prompt's text blocks (a system prompt), joined by a line break; any other block is refused. */
export function promptText(blocks: readonly ContentBlock[], path: string): string {
  return blocks.map((b, i) => {
    if (!isBlock(b, 'text')) throw cannotExpress(`${path}.${i}.type`, 'a system prompt holds text blocks only');
    return stringAt(b.text, `${path}.${i}.text`);
  }).join(PROMPT_JOIN);
}

/** The Messages block of a chat part of a user turn; what Messages cannot express is refused, naming `path`. */
export function blockOf(part: ChatPart, path: string): TextBlock | ImageBlock | DocumentBlock {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image_url': {
      const url = part.image_url.url;
      if (!url.startsWith('data:')) return { type: 'image', source: { type: 'url', url } };
      const inline = fromDataUrl(url);
      if (!inline) throw cannotExpress(`${path}.image_url.url`, 'a data URL must be base64 (data:<media type>;base64,<data>)');
      return { type: 'image', source: { type: 'base64', ...inline } };
    }
    case 'file': {
      const inline = typeof part.file.file_data === 'string' ? fromDataUrl(part.file.file_data) : undefined;
      if (!inline) throw cannotExpress(`${path}.file`, 'the Messages format takes a file as file_data, a base64 data URL (uploaded file ids mean nothing upstream)');
      const block: DocumentBlock = { type: 'document', source: { type: 'base64', ...inline } };
      if (typeof part.file.filename === 'string') block.title = part.file.filename;
      return block;
    }
    default:
      throw cannotExpress(`${path}.type`, `the Messages format has no "${String(part.type).slice(0, 64)}" part`);
  }
}
