/**
 * The highest Kafka offset already stored, per table and partition. Every sink row carries its
 * partition and offset, so after a crash between "insert succeeded" and "offset committed" the
 * replayed messages are recognised and skipped: exactly once in effect, with no FINAL queries.
 *
 * In a group of sink members the store is shared and partitions move between members: a member
 * that is assigned a partition reads its mark again (`refresh`), because another member may have
 * inserted rows of it since this one last looked (and, if that member died before committing,
 * those rows come back in the replay).
 */
import type { StoreLane } from '@feedpipe/store';

export class StoredOffsets {
  private readonly byTable = new Map<string, Map<number, number>>();

  /** Loads the marks of one Kafka cluster: offsets of another cluster say nothing about this one. */
  async load(store: StoreLane, tables: readonly string[], clusterId: string): Promise<void> {
    this.byTable.clear();
    for (const table of tables) {
      const rows = await store.rows<{ p: number | string; o: number | string }>(
        `SELECT kafka_partition AS p, max(kafka_offset) AS o FROM ${table} WHERE kafka_cluster = {cluster:String} GROUP BY kafka_partition`,
        { cluster: clusterId },
      );
      const partitions = new Map<number, number>();
      for (const row of rows) {
        partitions.set(Number(row.p), Number(row.o));
      }
      this.byTable.set(table, partitions);
    }
  }

  /**
   * Reads the marks of `partitions` of `table` from the store again, keeping the higher of the
   * stored and the known mark (this member's own inserts are in the store too, so the store's is
   * never lower unless the topic was recreated, which the reader handles).
   */
  async refresh(
    store: StoreLane,
    table: string,
    partitions: readonly number[],
    clusterId: string,
  ): Promise<void> {
    if (partitions.length === 0) return;
    const rows = await store.rows<{ p: number | string; o: number | string }>(
      `SELECT kafka_partition AS p, max(kafka_offset) AS o FROM ${table} WHERE kafka_cluster = {cluster:String} AND kafka_partition IN {partitions:Array(UInt32)} GROUP BY kafka_partition`,
      { cluster: clusterId, partitions: [...partitions] },
    );
    for (const row of rows) this.record(table, Number(row.p), Number(row.o));
  }

  /** True when this offset of the partition is already in the table. */
  isStored(table: string, partition: number, offset: number): boolean {
    const max = this.byTable.get(table)?.get(partition);
    return max !== undefined && offset <= max;
  }

  /** Forget a partition's mark, e.g. when the topic was recreated and its offsets restarted below it. */
  forget(table: string, partition: number): void {
    this.byTable.get(table)?.delete(partition);
  }

  record(table: string, partition: number, offset: number): void {
    let partitions = this.byTable.get(table);
    if (!partitions) {
      partitions = new Map();
      this.byTable.set(table, partitions);
    }
    const current = partitions.get(partition);
    if (current === undefined || offset > current) partitions.set(partition, offset);
  }

  /**
   * Where the store's rows of one partition end, for a topic whose records go to `tables`: the
   * next offset after the lowest mark among those tables that hold rows of the partition. The
   * lowest, because the tables of one topic are inserted one after another (and a server backup
   * copies them one after another): each is a prefix of the partition, the shortest one says where
   * the store as a whole is complete; records below a longer table's mark are skipped by that
   * table's own check. Undefined when no table holds a row of the partition.
   */
  resumeOffset(tables: readonly string[], partition: number): number | undefined {
    let lowest: number | undefined;
    for (const table of tables) {
      const mark = this.byTable.get(table)?.get(partition);
      if (mark !== undefined && (lowest === undefined || mark < lowest)) lowest = mark;
    }
    return lowest === undefined ? undefined : lowest + 1;
  }

  entries(table: string): ReadonlyMap<number, number> {
    return this.byTable.get(table) ?? new Map();
  }
}
