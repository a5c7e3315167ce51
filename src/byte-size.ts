/** Byte counts as the messages about input limits write them: the largest whole unit of 1024. */

const KiB = 1024;
const MiB = 1024 * KiB;

/** `256 MiB`, `64 KiB` or `1000 bytes`: MiB or KiB when the count is a whole number of them. */
export function formatByteSize(bytes: number): string {
  if (bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes % KiB === 0) return `${bytes / KiB} KiB`;
  return `${bytes} bytes`;
}
