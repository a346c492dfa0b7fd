/** RenewToken, static IP (set, modify, get) and profile. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { IP_LOCK_MS } from '../../accounts/account.js';
import { formatDay, formatIstDateTime, formatIstDmyHm, istDay } from '../../history/calendar.js';
import { accountOf, type SimContext } from '../context.js';
import { authError, inputError, orderError } from '../errors.js';
import { asFields, reqEnum, reqString } from '../input.js';
import { tokenGrant } from './auth.js';

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9a-fA-F:]{2,39}$/;

export function registerAccountRoutes(app: FastifyInstance, ctx: SimContext): void {
  const renew = async (request: FastifyRequest) => {
    const account = accountOf(request);
    const header = request.headers.svcclientid;
    if (header !== undefined && header !== account.clientId)
      throw authError('svcClientId does not match the token');
    const token = String(request.headers['access-token']);
    const renewed = ctx.tokens.renew(token);
    if (renewed === 'not-renewable')
      throw authError('Only active tokens issued from the web console can be renewed');
    if ('ok' in renewed) throw authError('Access token expired');
    return tokenGrant(ctx, account, 'WEB', renewed);
  };
  app.post('/RenewToken', renew);
  app.get('/RenewToken', renew);

  const setIp = (modify: boolean) => async (request: FastifyRequest) => {
    const account = accountOf(request);
    const f = asFields(request.body);
    const ip = reqString(f, 'ip', 45);
    const flag = reqEnum(f, 'ipFlag', ['PRIMARY', 'SECONDARY'] as const);
    if (!IPV4.test(ip) && !(ip.includes(':') && IPV6.test(ip)))
      throw inputError('ip must be an IPv4 or IPv6 address');
    const slot = account.ips[flag];
    const now = ctx.now();
    if (!modify && slot) throw orderError(`${flag} IP is already set; use modifyIP`);
    if (modify && !slot) throw orderError(`${flag} IP is not set; use setIP`);
    if (modify && slot && now - slot.setAtMs < IP_LOCK_MS) {
      throw orderError(
        `${flag} IP cannot be modified before ${formatDay(istDay((slot.setAtMs + IP_LOCK_MS) / 1000))}`,
      );
    }
    const other = account.ips[flag === 'PRIMARY' ? 'SECONDARY' : 'PRIMARY'];
    if (other?.ip === ip) throw inputError('primary and secondary IP must differ');
    for (const a of ctx.accounts.all()) {
      if (a !== account && (a.ips.PRIMARY?.ip === ip || a.ips.SECONDARY?.ip === ip)) {
        throw inputError('This IP is already registered to another account');
      }
    }
    account.ips[flag] = { ip, setAtMs: now };
    return { message: `${flag} IP ${modify ? 'modified' : 'set'} successfully`, status: 'SUCCESS' };
  };
  app.post('/ip/setIP', setIp(false));
  app.put('/ip/modifyIP', setIp(true));

  app.get('/ip/getIP', async (request) => {
    const account = accountOf(request);
    const from = (s: { setAtMs: number } | undefined) =>
      s ? formatDay(istDay((s.setAtMs + IP_LOCK_MS) / 1000)) : '';
    return {
      primaryIP: account.ips.PRIMARY?.ip ?? '',
      secondaryIP: account.ips.SECONDARY?.ip ?? '',
      modifyDatePrimary: from(account.ips.PRIMARY),
      modifyDateSecondary: from(account.ips.SECONDARY),
    };
  });

  app.get('/profile', async (request) => {
    const account = accountOf(request);
    const exp = (request.simClaims?.exp ?? 0) * 1000;
    const yearAhead = ctx.now() + 365 * 86_400_000;
    return {
      svcClientId: account.clientId,
      tokenValidity: formatIstDmyHm(exp),
      activeSegment: 'Equity, Derivative, Currency, Commodity',
      ddpi: account.seed.ddpi ? 'Active' : 'Deactive',
      mtf: account.seed.mtf ? 'Active' : 'Deactive',
      dataPlan: account.seed.dataPlan ? 'Active' : 'Deactive',
      dataValidity: account.seed.dataPlan ? `${formatIstDateTime(yearAhead)}.0` : '',
    };
  });
}
