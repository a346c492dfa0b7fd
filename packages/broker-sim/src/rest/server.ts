/**
 * The REST v2 simulator: fastify with JSON errors of the spec's shape everywhere (custom parsers,
 * error handler and not-found handler, so no HTML page or stack trace ever leaves), the auth
 * endpoints under /auth and the API under /v2 behind the access-token and rate-limit hooks.
 */
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import { AccountRegistry, type OrderEvents } from '../accounts/registry.js';
import { HistoryService } from '../history/service.js';
import { registerInstrumentMasterRoutes } from '../instruments/master-routes.js';
import { PostbackDispatcher } from '../postbacks/dispatcher.js';
import { PostbackRegistry } from '../postbacks/registry.js';
import { registerPostbackAuthRoutes, registerPostbackRoutes } from '../postbacks/routes.js';
import { ConsentStore } from './consents.js';
import type { SimContext } from './context.js';
import { authError, type ErrorBody, inputError, rateError, SimRestError } from './errors.js';
import { markFormBody } from './input.js';
import { type ResolvedOptions, type RestServerOptions, resolveOptions } from './options.js';
import { categoryOf, RateLimiter } from './rate-limits.js';
import { registerAccountRoutes } from './routes/account.js';
import { registerAlertRoutes } from './routes/alerts.js';
import { registerAuthRoutes } from './routes/auth.js';
import { registerChartRoutes } from './routes/charts.js';
import { registerEdisRoutes } from './routes/edis.js';
import { registerForeverRoutes } from './routes/forever.js';
import { registerFundsRoutes } from './routes/funds.js';
import { registerGlobalStocksRoutes } from './routes/globalstocks.js';
import { registerMarketDataRoutes } from './routes/marketdata.js';
import { registerOptionChainRoutes } from './routes/optionchain.js';
import { registerOrderRoutes } from './routes/orders.js';
import { registerPortfolioRoutes } from './routes/portfolio.js';
import { registerSuperRoutes } from './routes/super.js';
import { TokenStore } from './tokens.js';

export interface RestServer {
  /** `{base_url}`; `{api_root}` is baseUrl + '/v2'. */
  readonly baseUrl: string;
  /** `{auth_url}` = baseUrl + '/auth'. */
  readonly authUrl: string;
  readonly tokens: TokenStore;
  /** Every order status change and fill: `orderEvents.on('order', (clientId, order) => ...)`. */
  readonly orderEvents: OrderEvents;
  /** Postback delivery to the URLs registered through /v2/postback or /auth/app/postback. */
  readonly postbacks: PostbackDispatcher;
  close(): Promise<void>;
}

/** Largest accepted request body; the biggest legitimate one is a 1000-instrument snapshot. */
const BODY_LIMIT = 256 * 1024;

/** Repeated keys become an array; a single key stays a value (see `optArray` for array fields). */
function parseForm(body: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(body)) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return markFormBody(out);
}

function installParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  // An empty body is "no body" (DELETE/GET with a JSON content type is common), not an error.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(inputError('Malformed JSON body'), undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, parseForm(String(body)));
  });
  // Anything else is read and ignored, so an odd content type on a bodiless call does not fail it.
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, _body, done) => done(null, undefined));
}

function toBody(error: unknown): { status: number; body: ErrorBody } {
  if (error instanceof SimRestError) return { status: error.status, body: error.toBody() };
  const fe = error as Partial<FastifyError>;
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) {
    const message = status === 413 ? 'Request body too large' : 'Invalid request';
    return { status, body: { errorType: 'Input_Exception', errorCode: 'DH-905', errorMessage: message } };
  }
  return {
    status: 500,
    body: { errorType: 'Internal_Server_Error', errorCode: 'DH-908', errorMessage: 'Internal server error' },
  };
}

/** Access token check for every /v2 call; the account becomes `request.simAccount`. */
function authenticate(ctx: SimContext, request: FastifyRequest): void {
  const header = request.headers['access-token'];
  const token = Array.isArray(header) ? header[0] : header;
  if (!token) throw authError('Missing access-token header');
  const check = ctx.tokens.check(token);
  if (!check.ok) {
    throw authError(
      check.reason === 'expired' || check.reason === 'revoked'
        ? 'Access token expired'
        : 'Invalid access token',
    );
  }
  const account = ctx.accounts.get(check.claims.sub);
  if (!account) throw authError('Invalid access token');
  request.simAccount = account;
  request.simClaims = check.claims;
}

function rateLimit(ctx: SimContext, request: FastifyRequest): void {
  if (!ctx.limiter || !request.simAccount) return;
  const url = request.routeOptions.url ?? request.url;
  const category = categoryOf(request.method, url);
  const clientId = request.simAccount.clientId;
  if (url === '/v2/optionchain') {
    const chain = ctx.limiter.takeOptionChain(clientId, JSON.stringify(request.body ?? {}));
    if (!chain.allowed)
      throw rateError(`Too many requests: one identical option chain request per 3 seconds`);
  }
  const arrivedAt = request.simArrivedAt;
  const d = ctx.limiter.take(clientId, category, arrivedAt);
  ctx.onRateDecision?.({ clientId, category, arrivedAt, allowed: d.allowed });
  if (!d.allowed) {
    throw rateError(`Too many requests: ${d.window.limit} per ${d.window.label} for ${category} APIs`);
  }
}

/** The state every route group shares: accounts, tokens, consents, limits and history. */
function createContext(opts: ResolvedOptions): SimContext {
  const accounts = new AccountRegistry(opts.accounts, opts.model, opts.now, opts.matching);
  const tokens = new TokenStore(
    opts.now,
    (id) => {
      const a = accounts.get(id);
      return a ? { dataPlan: a.seed.dataPlan, partnerSecret: a.seed.partnerSecret } : undefined;
    },
    (partnerId) => accounts.partnerSecret(partnerId),
    opts.tokenPolicy,
  );
  return {
    market: opts.model,
    accounts,
    tokens,
    consents: new ConsentStore(opts.now),
    limiter: opts.rateLimits ? new RateLimiter(opts.now) : undefined,
    onRateDecision: opts.onRateDecision,
    history: new HistoryService(opts.model, opts.now),
    now: opts.now,
  };
}

/** Every error and every unknown path answers in the spec's JSON error shape. */
function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error, _request, reply) => {
    const { status, body } = toBody(error);
    void reply.code(status).type('application/json').send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    void reply
      .code(404)
      .type('application/json')
      .send({
        errorType: 'Input_Exception',
        errorCode: 'DH-905',
        errorMessage: `No such endpoint: ${request.method} ${path.slice(0, 200)}`,
      });
  });
}

/** /auth as it is; /v2 behind the access-token and rate-limit hooks. */
async function registerRoutes(
  app: FastifyInstance,
  ctx: SimContext,
  postbackUrls: PostbackRegistry,
): Promise<void> {
  await app.register(
    async (auth) => {
      registerAuthRoutes(auth, ctx);
      registerPostbackAuthRoutes(auth, ctx, postbackUrls);
    },
    { prefix: '/auth' },
  );
  // The instrument list is public: no token, no rate limit (the service publishes it as a file).
  registerInstrumentMasterRoutes(app, ctx);
  await app.register(
    async (v2) => {
      v2.addHook('onRequest', async (request) => {
        request.simArrivedAt = ctx.now();
        authenticate(ctx, request);
      });
      v2.addHook('preHandler', async (request) => {
        rateLimit(ctx, request);
        // Matching runs before each call, so a read always sees the book as of the clock's now.
        request.simAccount?.step();
      });
      registerAccountRoutes(v2, ctx);
      registerOrderRoutes(v2, ctx);
      registerSuperRoutes(v2, ctx);
      registerForeverRoutes(v2, ctx);
      registerAlertRoutes(v2, ctx);
      registerPortfolioRoutes(v2, ctx);
      registerFundsRoutes(v2, ctx);
      registerEdisRoutes(v2, ctx);
      registerMarketDataRoutes(v2, ctx);
      registerChartRoutes(v2, ctx);
      registerOptionChainRoutes(v2, ctx);
      registerGlobalStocksRoutes(v2, ctx);
      registerPostbackRoutes(v2, postbackUrls);
    },
    { prefix: '/v2' },
  );
}

/** The background matching pass, so orders fill while nobody calls; undefined when switched off. */
function startMatchingTimer(accounts: AccountRegistry, intervalMs: number): NodeJS.Timeout | undefined {
  if (intervalMs <= 0) return undefined;
  const timer = setInterval(() => {
    try {
      accounts.step();
    } catch {
      // A failed pass must not kill the timer; the next request's pass reports the error.
    }
  }, intervalMs);
  timer.unref();
  return timer;
}

export async function createRestServer(options: RestServerOptions): Promise<RestServer> {
  const opts = resolveOptions(options);
  // forceCloseConnections: close() ends keep-alive and in-flight connections instead of waiting on them.
  // ignoreTrailingSlash: `/trades/` is `/trades` (the official SDK's trade book sends the slash),
  // never `/trades/:orderId` with an empty id; the same holds for every path.
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT,
    forceCloseConnections: true,
    routerOptions: { ignoreTrailingSlash: true },
  });
  const ctx = createContext(opts);
  installParsers(app);
  app.decorateRequest('simAccount', null);
  app.decorateRequest('simClaims', null);
  app.decorateRequest('simArrivedAt', 0);
  installErrorHandlers(app);

  const postbackUrls = new PostbackRegistry();
  const postbacks = new PostbackDispatcher(ctx.accounts.orderEvents, postbackUrls, opts.postbacks);
  await registerRoutes(app, ctx, postbackUrls);

  const address = await app.listen({ host: opts.host, port: opts.port });
  const timer = startMatchingTimer(ctx.accounts, opts.matchIntervalMs);
  const baseUrl = address.replace('[::1]', '[::1]');
  return {
    baseUrl,
    authUrl: `${baseUrl}/auth`,
    tokens: ctx.tokens,
    orderEvents: ctx.accounts.orderEvents,
    postbacks,
    async close() {
      if (timer) clearInterval(timer);
      await postbacks.close();
      await app.close();
    },
  };
}
