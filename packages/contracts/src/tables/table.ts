/** A ClickHouse table as its readers and writers name it: qualified name and column order. */
export interface TableContract<C extends string = string> {
  /** `database.table`. */
  readonly name: string;
  /** Every column, in the order of the migration that creates the table (inserts use this order). */
  readonly columns: readonly C[];
}

export function table<const C extends string>(name: string, columns: readonly C[]): TableContract<C> {
  return Object.freeze({ name, columns: Object.freeze([...columns]) });
}
