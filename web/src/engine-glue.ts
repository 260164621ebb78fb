// The engine's JavaScript glue (Emscripten's), in a chunk of its own that knows its own URL, so
// that the warm-up Worker (engine-warmup.ts) imports this same file instead of a second copy.
export { default } from 'scalelab-engine';
/** the URL of this chunk in the build */
export const glueUrl: string = import.meta.url;
