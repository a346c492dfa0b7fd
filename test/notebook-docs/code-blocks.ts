/**
 * Fenced code blocks of a Markdown file, with the line each starts on and its language. Blocks
 * without a language are diagrams and listings (README's data flow and layout), not code.
 */
import { readFileSync } from 'node:fs';

export interface CodeBlock {
  /** The file as given (repository-relative in the tests). */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's info string, first word, lower case ('' when none). */
  lang: string;
  code: string;
}

/** Languages the docs test executes: Python in one namespace per file, shell with bash. */
export const PYTHON = new Set(['python', 'py']);
export const SHELL = new Set(['sh', 'bash', 'shell']);

export function codeBlocks(path: string, file: string): CodeBlock[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  let open: { fence: string; line: number; lang: string; body: string[] } | undefined;
  lines.forEach((text, index) => {
    const fence = /^(`{3,}|~{3,})\s*([^\s`]*)/.exec(text);
    if (open === undefined) {
      if (fence)
        open = { fence: fence[1] ?? '```', line: index + 1, lang: (fence[2] ?? '').toLowerCase(), body: [] };
      return;
    }
    if (text.trim().startsWith(open.fence) && text.trim().replace(/[`~]/g, '') === '') {
      blocks.push({ file, line: open.line, lang: open.lang, code: `${open.body.join('\n')}\n` });
      open = undefined;
      return;
    }
    open.body.push(text);
  });
  if (open !== undefined) throw new Error(`${file}:${open.line}: code block never closed`);
  return blocks;
}
