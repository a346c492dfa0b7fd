/**
 * The published instrument list: GET /api-data/api-scrip-master.csv (compact) and
 * /api-data/api-scrip-master-detailed.csv, outside /v2 and without credentials, as the service
 * publishes its list at a public address. The files of a day are built once and kept until the IST
 * day changes (the service rebuilds its list daily).
 */
import type { FastifyInstance } from 'fastify';
import { istDay } from '../history/calendar.js';
import type { SimContext } from '../rest/context.js';
import { type MasterFile, masterCsv } from './master-csv.js';
import { masterRows } from './master-rows.js';

/** Paths of the two files on the simulator's base URL. */
export const INSTRUMENT_MASTER_PATHS: Readonly<Record<MasterFile, string>> = Object.freeze({
  compact: '/api-data/api-scrip-master.csv',
  detailed: '/api-data/api-scrip-master-detailed.csv',
});

export function registerInstrumentMasterRoutes(app: FastifyInstance, ctx: SimContext): void {
  let built: { day: number; files: Map<MasterFile, string> } | undefined;
  const fileOf = (file: MasterFile): string => {
    const day = istDay(ctx.now() / 1000);
    if (built?.day !== day) built = { day, files: new Map() };
    let csv = built.files.get(file);
    if (csv === undefined) {
      csv = masterCsv(masterRows(ctx.market, ctx.history, day), file);
      built.files.set(file, csv);
    }
    return csv;
  };
  for (const file of ['compact', 'detailed'] as const) {
    app.get(INSTRUMENT_MASTER_PATHS[file], async (_request, reply) =>
      reply.type('text/csv; charset=utf-8').send(fileOf(file)),
    );
  }
}
