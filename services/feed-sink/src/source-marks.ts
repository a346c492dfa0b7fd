/**
 * Recognises a feed record that reached Kafka twice by its source identity (the `fp-src` header,
 * kafka/source-identity.ts), not by its offset: a copy re-produced under a new producer id sits at
 * another offset, so the stored-offset check cannot see it.
 *
 * Per topic and partition it keeps, for each source stream (ingestor run and connection), the
 * highest (chunk, row) seen. A stream's records reach a partition in that order, so a record at or
 * below the mark is a copy. The check reads the header bytes in place (no object per record).
 *
 * Limit, stated in docs/architecture.md: the marks live in memory and are rebuilt from what the
 * sink reads after a start; a copy whose original lies before the offset a restarted sink resumes
 * from is not recognised.
 */
import { isSourceCopy, type SourceMark } from '@feedpipe/contracts';

export class SourceMarks {
  readonly #byPartition = new Map<string, Map<number, SourceMark>>();

  /** The marks of one topic partition, to pass to `isCopy` for each of its records. */
  partition(topic: string, partition: number): Map<number, SourceMark> {
    const key = `${topic}\u0000${partition}`;
    let marks = this.#byPartition.get(key);
    if (!marks) {
      marks = new Map();
      this.#byPartition.set(key, marks);
    }
    return marks;
  }

  /**
   * True when the record with this `fp-src` header value was seen before on the partition;
   * otherwise it becomes the stream's mark. A record without a valid header is never a copy.
   */
  isCopy(marks: Map<number, SourceMark>, header: Buffer | undefined): boolean {
    return isSourceCopy(marks, header);
  }
}
