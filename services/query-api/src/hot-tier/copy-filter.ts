/**
 * Drops a trade that reached Kafka twice, by its source identity (the `fp-src` header of
 * @feedpipe/contracts), as the sink does before it stores: per partition, the highest
 * (chunk, row) of each source stream; a record at or below it is a copy. The tier keeps its own
 * marks (a service does not borrow the sink's internals); like the sink's, they start empty, so a
 * copy whose original lies before the offset the tier resumes from is not recognised (the sink,
 * restarted, has the same limit: docs/architecture.md).
 */
import { SOURCE_BYTES } from '@feedpipe/contracts';

/** Streams remembered per partition (each ingestor run adds a few); the oldest is forgotten. */
const MAX_STREAMS_PER_PARTITION = 4_096;

export class CopyFilter {
  readonly #marks = new Map<number, Map<number, { chunk: number; row: number }>>();

  /** True when this header marks a copy on `partition`; otherwise it becomes its stream's mark. */
  isCopy(partition: number, header: Buffer | undefined): boolean {
    if (header === undefined || header.length !== SOURCE_BYTES) return false;
    let marks = this.#marks.get(partition);
    if (marks === undefined) {
      marks = new Map();
      this.#marks.set(partition, marks);
    }
    const stream = header.readUInt32BE(0) * 65_536 + header.readUInt16BE(4);
    const chunk = header.readUInt32BE(6);
    const row = header.readUInt32BE(10);
    const mark = marks.get(stream);
    if (mark === undefined) {
      if (marks.size >= MAX_STREAMS_PER_PARTITION) {
        const oldest = marks.keys().next().value;
        if (oldest !== undefined) marks.delete(oldest);
      }
      marks.set(stream, { chunk, row });
      return false;
    }
    if (chunk < mark.chunk || (chunk === mark.chunk && row <= mark.row)) return true;
    mark.chunk = chunk;
    mark.row = row;
    return false;
  }
}
