/**
 * Work on texts shorter than this runs inline, on the event loop: a parse of 64 KB takes about a
 * third of a millisecond, about what a hop to a worker thread costs. Longer texts are parsed,
 * queried, patched and checked on the worker pool (work/), or not at all.
 */
export const INLINE_CHARS = 64 * 1024;
