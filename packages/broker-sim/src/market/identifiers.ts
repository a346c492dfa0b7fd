/**
 * Deterministic names and codes for simulated instruments: tickers, ISINs with a valid check digit,
 * inception dates.
 */
import { hash3 } from './prng.js';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const TICKER_SPACE = 26 ** 4;
// Odd and not a multiple of 13, hence coprime with 26^4: `ordinal * STRIDE mod 26^4` is a bijection,
// so tickers never collide for up to 456 976 instruments while still looking shuffled.
const TICKER_STRIDE = 104_729;
export const MAX_TICKERS = TICKER_SPACE;

/** A four-letter ticker, unique per ordinal for a given seed. */
export function tickerFor(seed: number, ordinal: number): string {
  let code = (ordinal * TICKER_STRIDE + (seed >>> 0)) % TICKER_SPACE;
  let text = '';
  for (let i = 0; i < 4; i++) {
    text = LETTERS[code % 26] + text;
    code = Math.floor(code / 26);
  }
  return text;
}

const SYLLABLES = [
  'KA',
  'RO',
  'TI',
  'MA',
  'NU',
  'VE',
  'SHI',
  'PRA',
  'DHA',
  'LO',
  'GI',
  'BHA',
  'RA',
  'TE',
  'SU',
];
const SUFFIXES = ['', 'IND', 'FIN', 'TECH', 'POWER', 'LTD', 'AUTO', 'PHARMA', 'BANK', 'CEM'];

/** An Indian-exchange style symbol (e.g. "PRAMATECH"); `taken` keeps names unique within the universe. */
export function indianSymbolFor(seed: number, id: number, taken: Set<string>): string {
  const h1 = hash3(seed, id, 11);
  const h2 = hash3(seed, id, 12);
  const base =
    (SYLLABLES[h1 % SYLLABLES.length] ?? 'KA') +
    (SYLLABLES[(h1 >>> 8) % SYLLABLES.length] ?? 'RO') +
    (SYLLABLES[(h1 >>> 16) % SYLLABLES.length] ?? 'TI') +
    (SUFFIXES[h2 % SUFFIXES.length] ?? '');
  let symbol = base;
  for (let n = 2; taken.has(symbol); n++) symbol = `${base}${n}`;
  taken.add(symbol);
  return symbol;
}

/** ISIN check digit (ISO 6166): letters become 10..35, then the Luhn algorithm over the digit string. */
export function isinCheckDigit(body: string): number {
  let digits = '';
  for (const ch of body) {
    const code = ch.charCodeAt(0);
    digits += code >= 65 && code <= 90 ? String(code - 55) : ch;
  }
  let sum = 0;
  // Luhn doubles every second digit counting from the right, starting with the rightmost one here
  // because the check digit itself is not yet appended.
  for (let i = digits.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/** A syntactically valid ISIN for `country` (e.g. "US", "IN"), derived from the id. */
export function isinFor(country: string, seed: number, id: number): string {
  const h = hash3(seed, id, 13);
  const h2 = hash3(seed, id, 14);
  let nsin = '';
  for (let i = 0; i < 9; i++) {
    const v = ((i < 5 ? h >>> (i * 6) : h2 >>> ((i - 5) * 6)) & 0x3f) % 36;
    nsin += v < 10 ? String(v) : LETTERS[v - 10];
  }
  const body = country + nsin;
  return body + String(isinCheckDigit(body));
}

const FIRST_INCEPTION_MS = Date.UTC(1995, 0, 2);
const LAST_INCEPTION_MS = Date.UTC(2023, 11, 29);
const DAY_MS = 86_400_000;

/** A weekday between 1995-01-02 and 2023-12-29, as YYYY-MM-DD. */
export function inceptionDateFor(seed: number, id: number): string {
  const days = Math.floor((LAST_INCEPTION_MS - FIRST_INCEPTION_MS) / DAY_MS);
  let ms = FIRST_INCEPTION_MS + (hash3(seed, id, 15) % days) * DAY_MS;
  const weekday = new Date(ms).getUTCDay();
  if (weekday === 6) ms += 2 * DAY_MS;
  else if (weekday === 0) ms += DAY_MS;
  return new Date(ms).toISOString().slice(0, 10);
}
