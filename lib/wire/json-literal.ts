/** A JSON string literal read without JSON.parse: the pattern of its body and its value (the quick readers of stream chunks share them). */

/** A JSON string's body, as a regular expression's capturing group: unescaped characters or escapes (which JSON.parse then checks). */
export const STRING_BODY = String.raw`((?:[^"\\\u0000-\u001f]|\\.)*)`;

/** A string literal's value: the body itself when it has no escape, else JSON's reading of it (undefined if invalid). */
export function literalValue(body: string): string | undefined {
  if (!body.includes('\\')) return body;
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return undefined;
  }
}
