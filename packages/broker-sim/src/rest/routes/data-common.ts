/** Shared rules of the Data API endpoints: data plan required, input errors as 8xx data codes. */
import type { FastifyRequest } from 'fastify';
import type { Account } from '../../accounts/account.js';
import { accountOf } from '../context.js';
import { dataError, SimRestError } from '../errors.js';

export function dataAccount(request: FastifyRequest): Account {
  const account = accountOf(request);
  if (!account.seed.dataPlan) throw dataError('806', 'Data API not subscribed');
  return account;
}

/** Runs a reader; a DH-905 input error becomes the Data API's 814 invalid request. */
export function asDataInput<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof SimRestError && e.code === 'DH-905')
      throw dataError('814', `Invalid request: ${e.message}`);
    throw e;
  }
}
