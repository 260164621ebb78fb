// The published runs (data/measurements.json): real systems' measured speeds and times, each with
// its source and the engine inputs that reproduce it. They are a static file fetched when a page
// first shows them, not a part of the engine a lab loads (that would put every lab route over its
// 300 KiB first view; BENCHMARKS.md). The engine evaluates each run's inputs where a page needs
// the run's bound.
import runsUrl from 'scalelab-measurements?url';
import type { MeasurementCatalog } from './engine';

let loaded: MeasurementCatalog | null = null;
let loading: Promise<MeasurementCatalog> | null = null;

/** Fetches the catalog once per page. */
export function loadPublishedRuns(): Promise<MeasurementCatalog> {
  loading ??= fetch(runsUrl)
    .then((r) => {
      if (!r.ok) throw new Error(`published runs: ${runsUrl} answered ${r.status}`);
      return r.json() as Promise<MeasurementCatalog>;
    })
    .then((catalog) => (loaded = catalog));
  return loading;
}

/** The catalog if it has arrived; otherwise null, and `host` is asked to render again once it has
 *  (a failed fetch is reported on the console and the page shows no runs). */
export function publishedRuns(host: { requestUpdate(): void }): MeasurementCatalog | null {
  if (loaded) return loaded;
  loadPublishedRuns().then(() => host.requestUpdate(), (e: unknown) => console.error(e));
  return null;
}
