/** /optionchain and /optionchain/expirylist for index (IDX_I) and NSE stock underlyings. */
import type { FastifyInstance } from 'fastify';
import { istDay, parseDay } from '../../history/calendar.js';
import { expiryList, formatExpiry } from '../../history/expiries.js';
import { expiryInstant } from '../../history/option-chain.js';
import type { SimContext } from '../context.js';
import { dataError } from '../errors.js';
import { asFields, type Fields, optString } from '../input.js';
import type { SimInstrument } from '../market-source.js';
import { asDataInput, dataAccount } from './data-common.js';

function underlying(ctx: SimContext, f: Fields): SimInstrument {
  const id = Number(f.UnderlyingScrip);
  if (f.UnderlyingScrip === undefined) throw dataError('814', 'UnderlyingScrip is required');
  const inst = Number.isInteger(id) && id > 0 ? ctx.market.instrument(id) : undefined;
  const seg = asDataInput(() => optString(f, 'UnderlyingSeg', 10));
  const ok =
    inst !== undefined &&
    (inst.exchangeSegment === 'IDX_I' || inst.exchangeSegment === 'NSE_EQ') &&
    (seg === undefined ||
      seg === inst.exchangeSegment ||
      (seg === 'NSE_FNO' && inst.exchangeSegment === 'NSE_EQ'));
  if (!ok || !inst) throw dataError('813', 'Invalid underlying security id');
  return inst;
}

export function registerOptionChainRoutes(app: FastifyInstance, ctx: SimContext): void {
  const listFor = (u: SimInstrument): number[] => {
    const nowS = ctx.now() / 1000;
    return expiryList(istDay(nowS), u.instrumentType === 'INDEX').filter((d) => expiryInstant(d) > nowS);
  };

  app.post('/optionchain/expirylist', async (request) => {
    dataAccount(request);
    const u = underlying(ctx, asFields(request.body));
    return { data: listFor(u).map(formatExpiry), status: 'success' };
  });

  app.post('/optionchain', async (request) => {
    dataAccount(request);
    const f = asFields(request.body);
    const u = underlying(ctx, f);
    const text = asDataInput(() => optString(f, 'Expiry', 10));
    if (text === undefined) throw dataError('811', 'Expiry is required');
    const day = parseDay(text);
    if (day === undefined || !listFor(u).includes(day)) throw dataError('811', 'Invalid expiry date');
    const q = ctx.market.quote(u.securityId);
    if (!q) throw dataError('800', 'No price for the underlying');
    const nowS = ctx.now() / 1000;
    const data = ctx.history.options.chain(u, q.ltp, q.prevClose || q.ltp, day, nowS, istDay(nowS));
    return { data, status: 'success' };
  });
}
