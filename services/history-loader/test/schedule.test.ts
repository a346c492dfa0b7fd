/** The scheduled loader's next run over weekends, holidays and closing times, and the calendar's settled days. */
import { describe, expect, it } from 'vitest';
import { istDayOf, parseDate } from '../src/calendar.js';
import { loadedSegments, nextRunAt, runOfDay } from '../src/schedule.js';
import { TradingCalendar } from '../src/trading-calendar.js';

/** Epoch ms of an IST wall-clock time. */
function ist(date: string, time = '00:00'): number {
  const day = parseDate(date) as number;
  const [h, m] = time.split(':').map(Number) as [number, number];
  return (day * 86_400 - 19_800 + h * 3600 + m * 60) * 1000;
}

const DELAY = 15 * 60_000;
const SIM = new TradingCalendar();
const EQ = ['NSE_EQ'];

describe('next run', () => {
  it('is 15:45 IST the same weekday before the close, the next weekday after it', () => {
    // 2026-11-25 is a Wednesday.
    expect(nextRunAt(SIM, EQ, ist('2026-11-25', '10:00'), DELAY)).toBe(ist('2026-11-25', '15:45'));
    expect(nextRunAt(SIM, EQ, ist('2026-11-25', '15:44'), DELAY)).toBe(ist('2026-11-25', '15:45'));
    // Strictly after: a run at 15:45 schedules the next day's.
    expect(nextRunAt(SIM, EQ, ist('2026-11-25', '15:45'), DELAY)).toBe(ist('2026-11-26', '15:45'));
    expect(nextRunAt(SIM, EQ, ist('2026-11-25', '23:59'), DELAY)).toBe(ist('2026-11-26', '15:45'));
  });

  it("skips the weekend: after Friday's run comes Monday's", () => {
    expect(nextRunAt(SIM, EQ, ist('2026-11-27', '16:00'), DELAY)).toBe(ist('2026-11-30', '15:45'));
    expect(nextRunAt(SIM, EQ, ist('2026-11-28', '12:00'), DELAY)).toBe(ist('2026-11-30', '15:45'));
    expect(nextRunAt(SIM, EQ, ist('2026-11-29', '23:00'), DELAY)).toBe(ist('2026-11-30', '15:45'));
  });

  it('skips exchange holidays of every segment, and a long weekend with them', () => {
    const calendar = new TradingCalendar({ holidays: ['2026-11-30', '2026-12-01'] });
    expect(nextRunAt(calendar, EQ, ist('2026-11-27', '16:00'), DELAY)).toBe(ist('2026-12-02', '15:45'));
  });

  it('on a day only some segments trade, waits for the last close among those that do', () => {
    const calendar = new TradingCalendar({
      holidays: { MCX_COMM: ['2026-11-26'] },
      closes: { MCX_COMM: '23:30' },
    });
    const both = ['MCX_COMM', 'NSE_EQ'];
    // Wednesday: both trade, MCX closes last.
    expect(nextRunAt(calendar, both, ist('2026-11-25', '16:00'), DELAY)).toBe(ist('2026-11-25', '23:45'));
    // Thursday: MCX is closed, so the run follows NSE's close.
    expect(nextRunAt(calendar, both, ist('2026-11-25', '23:45'), DELAY)).toBe(ist('2026-11-26', '15:45'));
    expect(runOfDay(calendar, both, istDayOf(ist('2026-11-28')), DELAY)).toBeUndefined();
  });

  it('a close plus delay past midnight IST is still found from the next day', () => {
    const calendar = new TradingCalendar({ closes: { MCX_COMM: '23:50' } });
    // Friday 23:50 + 15 min = Saturday 00:05 IST.
    expect(nextRunAt(calendar, ['MCX_COMM'], ist('2026-11-28', '00:01'), DELAY)).toBe(
      ist('2026-11-28', '00:05'),
    );
  });

  it('refuses a calendar with no trading day ahead', () => {
    const everyDay = Array.from({ length: 500 }, (_, i) =>
      new Date(Date.UTC(2026, 10, 25 + i)).toISOString().slice(0, 10),
    );
    expect(() =>
      nextRunAt(new TradingCalendar({ holidays: everyDay }), EQ, ist('2026-11-25'), DELAY),
    ).toThrow(/no trading day/);
  });
});

describe('trading calendar', () => {
  it('settles a day at its close, a day without a session at once', () => {
    const day = istDayOf(ist('2026-11-25'));
    expect(SIM.settledDay('NSE_EQ', ist('2026-11-25', '15:29'))).toBe(day - 1);
    expect(SIM.settledDay('NSE_EQ', ist('2026-11-25', '15:30'))).toBe(day);
    expect(SIM.settledDay('NSE_EQ', ist('2026-11-28', '10:00'))).toBe(istDayOf(ist('2026-11-28')));
  });

  it('refuses bad holiday files by name', () => {
    expect(() => new TradingCalendar({ holidays: ['2026-02-30'] })).toThrow(/not a date/);
    expect(() => new TradingCalendar({ holidays: { NYSE: [] } })).toThrow(/not a segment/);
    expect(() => new TradingCalendar({ closes: { NSE_EQ: '25:00' } })).toThrow(/HH:MM/);
  });

  it('loads the segments of the universe, F&O segments of expired options included', () => {
    expect(
      loadedSegments([
        {
          securityId: 1,
          segment: 'NSE_EQ',
          instrument: 'EQUITY',
          fnoSegment: 'NSE_FNO',
          optionChain: false,
          expiredOptions: false,
        },
        {
          securityId: 13,
          segment: 'IDX_I',
          instrument: 'INDEX',
          fnoSegment: 'NSE_FNO',
          optionChain: true,
          expiredOptions: true,
        },
      ] as never),
    ).toEqual(['IDX_I', 'NSE_EQ', 'NSE_FNO']);
  });
});
