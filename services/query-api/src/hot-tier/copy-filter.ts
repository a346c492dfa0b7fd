/**
 * Drops a trade that reached Kafka twice, by its source identity (the `fp-src` header of
 * @feedpipe/contracts), as the sink does before it stores: per partition, the highest
 * (chunk, row) of each source stream; a record at or below it is a copy. The tier keeps its own
 * marks (a service does not borrow the sink's internals); like the sink's, they start empty, so a
 * copy whose original lies before the offset the tier resumes from is not recognised (the sink,
 * restarted, has the same limit: docs/architecture.md).
 */
import { isSourceCopy, type SourceMark } from '@feedpipe/contracts';

export class CopyFilter {
  readonly #marks = new Map<number, Map<number, SourceMark>>();

  /** True when this header marks a copy on `partition`; otherwise it becomes its stream's mark. */
  isCopy(partition: number, header: Buffer | undefined): boolean {
    if (header === undefined) return false;
    let marks = this.#marks.get(partition);
    if (marks === undefined) {
      marks = new Map();
      this.#marks.set(partition, marks);
    }
    return isSourceCopy(marks, header);
  }
}
