export { type MasterFile, masterCsv } from './master-csv.js';
export { INSTRUMENT_MASTER_PATHS, registerInstrumentMasterRoutes } from './master-routes.js';
export { GLOBAL_STOCKS_EXCHANGE, type MasterRow, masterRows } from './master-rows.js';
