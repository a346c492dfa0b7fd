// The instrument box: as the viewer types, suggestions come from /v1/instruments/search (debounced,
// so a burst of keystrokes costs one request) and the chart follows without Enter as soon as the
// text is a whole symbol or id. Answers to older text are ignored, so a slow reply cannot move the
// chart back to what was typed before.

export const DEBOUNCE_MS = 250;
const SUGGESTIONS = 10;

/**
 * onResult hears { kind: 'match', match } for a whole id or symbol, { kind: 'partial', count } for
 * the beginning of some, { kind: 'unknown', query } when nothing matches, { kind: 'error', error }.
 */
export function createInstrumentSearch({ input, list, api, onResult }) {
  let timer;
  let sequence = 0;

  function suggest(matches) {
    const symbols = matches.map((m) => m.symbol);
    list.replaceChildren(
      ...matches.map((m) => {
        const option = document.createElement('option');
        // A symbol listed on two segments is told apart by its id.
        const unique = m.symbol && symbols.indexOf(m.symbol) === symbols.lastIndexOf(m.symbol);
        option.value = unique ? m.symbol : String(m.securityId);
        option.label = [m.symbol, m.segment, m.securityId, m.stored ? '' : '(no data stored)']
          .filter((part) => part !== null && part !== '')
          .join(' · ');
        return option;
      }),
    );
  }

  async function lookUp(text) {
    const mine = ++sequence;
    const query = text.trim();
    if (query === '') return;
    try {
      const body = await api.json(
        `/v1/instruments/search?q=${encodeURIComponent(query)}&limit=${SUGGESTIONS}`,
      );
      if (mine !== sequence) return;
      const matches = body.data ?? [];
      suggest(matches);
      const whole = matches.find((m) => m.exact);
      if (whole) onResult({ kind: 'match', match: whole });
      else if (matches.length > 0) onResult({ kind: 'partial', count: matches.length, query });
      else onResult({ kind: 'unknown', query });
    } catch (error) {
      if (mine === sequence) onResult({ kind: 'error', error });
    }
  }

  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => lookUp(input.value), DEBOUNCE_MS);
  });

  return {
    /** Looks the text up at once (the instrument in the page's address, the first one shown). */
    set(text) {
      clearTimeout(timer);
      input.value = text;
      return lookUp(text);
    },
  };
}
