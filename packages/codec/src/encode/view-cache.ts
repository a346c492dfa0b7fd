// A DataView is an allocation; encoders called in loops over the same target reuse the last one
// made when the target's backing buffer has not changed.
let lastBuffer: ArrayBufferLike | undefined;
let lastView: DataView | undefined;

export function dataViewOf(bytes: Uint8Array): DataView {
  if (bytes.buffer !== lastBuffer || lastView === undefined) {
    lastBuffer = bytes.buffer;
    lastView = new DataView(bytes.buffer);
  }
  return lastView;
}
