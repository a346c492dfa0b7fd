/**
 * eDIS: T-PIN request, the depository form (bulk and single) and the status inquiry. The
 * simulator has no depository: generating the form stands for the user completing it with the
 * T-PIN, so the form approves the ISINs' quantities, provided a T-PIN was requested that day.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Account } from '../../accounts/account.js';
import { accountOf, type SimContext } from '../context.js';
import { inputError, orderError } from '../errors.js';
import { asFields, optArray, optBool, optEnum, optInt, reqEnum, reqString } from '../input.js';

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function approve(account: Account, isins: readonly string[], qty?: number): string {
  if (!account.tpinRequested) throw orderError('Request a T-PIN first (GET /edis/tpin)');
  const held = account.portfolio.isinHoldings();
  const rows: string[] = [];
  for (const isin of isins) {
    const h = held.find((x) => x.isin === isin);
    if (!h) throw inputError(`No holding with ISIN ${isin}`);
    const q = Math.min(qty ?? h.totalQty, h.totalQty);
    account.edisApproved.set(isin, q);
    rows.push(
      `<input type="hidden" name="isin" value="${escapeHtml(isin)}"><input type="hidden" name="qty" value="${q}">`,
    );
  }
  return `<form name="edis" method="post" action="https://depository.invalid/edis">${rows.join('')}<input name="tpin" type="password"></form>`;
}

export function registerEdisRoutes(app: FastifyInstance, _ctx: SimContext): void {
  app.get('/edis/tpin', async (request, reply) => {
    const account = accountOf(request);
    account.tpinRequested = true;
    return reply.code(202).send({
      svcClientId: account.clientId,
      edisStatus: 'SUCCESS',
      remarks: 'T-PIN sent to the registered mobile number',
    });
  });

  app.post('/edis/bulkform', async (request) => {
    const account = accountOf(request);
    const f = asFields(request.body);
    const list = optArray(f, 'isin');
    if (list === undefined || list.length === 0) throw inputError('isin must be a non-empty array');
    reqEnum(f, 'exchange', ['NSE', 'BSE', 'MCX', 'ALL'] as const);
    reqEnum(f, 'segment', ['EQ', 'COMM', 'FNO'] as const);
    optBool(f, 'bulk');
    const isins = list.map((x) => reqString({ isin: x }, 'isin', 12));
    const all = isins.includes('ALL') ? account.portfolio.isinHoldings().map((h) => h.isin) : isins;
    return { svcClientId: account.clientId, edisFormHtml: approve(account, all) };
  });

  // The single-ISIN form: the spec writes `/edis/from`, the official SDK posts to `/edis/form`;
  // both spellings are served by the same handler.
  const singleForm = async (request: FastifyRequest) => {
    const account = accountOf(request);
    const f = asFields(request.body);
    const isin = reqString(f, 'isin', 12);
    const qty = optInt(f, 'qty', 1);
    optEnum(f, 'exchange', ['NSE', 'BSE', 'MCX', 'ALL'] as const);
    optEnum(f, 'segment', ['EQ', 'COMM', 'FNO'] as const);
    optBool(f, 'bulk');
    return { svcClientId: account.clientId, edisFormHtml: approve(account, [isin], qty) };
  };
  app.post('/edis/from', singleForm);
  app.post('/edis/form', singleForm);

  app.get<{ Params: { isin: string } }>('/edis/inquire/:isin', async (request) => {
    const account = accountOf(request);
    const rows = account.portfolio.isinHoldings().map((h) => {
      const approved = account.seed.ddpi ? h.totalQty : (account.edisApproved.get(h.isin) ?? 0);
      return {
        clientId: account.clientId,
        isin: h.isin,
        totalQty: h.totalQty,
        aprvdQty: approved,
        status: approved > 0 ? 'SUCCESS' : 'FAILURE',
        remarks: approved > 0 ? 'eDIS authorised' : 'eDIS not authorised',
      };
    });
    if (request.params.isin === 'ALL') return rows;
    const row = rows.find((r) => r.isin === request.params.isin);
    if (!row) throw inputError('No holding with this ISIN');
    return row;
  });
}
