/**
 * Where the instrument list is read from. The service publishes it at a public address of its own
 * (beyond-the-spec.md does not give it, so a deployment against the real service sets
 * INSTRUMENT_MASTER_URL); unset, the address is the simulator's, under the REST base URL.
 */
export const SIM_INSTRUMENT_MASTER_PATH = '/api-data/api-scrip-master-detailed.csv';

export function instrumentMasterUrl(explicit: string | undefined, baseUrl: string): string {
  return explicit ?? `${baseUrl.replace(/\/+$/, '')}${SIM_INSTRUMENT_MASTER_PATH}`;
}
