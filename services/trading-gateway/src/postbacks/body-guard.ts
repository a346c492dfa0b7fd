/**
 * Checks on a postback body's raw text before it is parsed. A body may carry extra fields the
 * receiver passes through as they are, and a deeply nested one was accepted once and then broke
 * every later write (`JSON.stringify` recurses and runs out of stack around 10,000 levels). So the
 * nesting depth is measured here, on the text, in one loop with a counter: no recursion, no
 * allocation, O(length), and the length is already capped by the body limit.
 */

/** Deepest `{`/`[` nesting in JSON text (brackets inside strings do not count). */
export function jsonDepth(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i += 1;
      else if (c === 0x22 /* " */) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      depth += 1;
      if (depth > deepest) {
        deepest = depth;
        // The caller only needs to know the limit was passed; the rest of the text is not read.
        if (deepest > stopAbove) return deepest;
      }
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth -= 1;
  }
  return deepest;
}
