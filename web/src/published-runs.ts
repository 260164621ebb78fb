// The published runs (data/measurements.json): real systems' measured speeds and times, each with
// its source, the engine inputs that reproduce it and its share of the engine's bound. They are
// static files, one per calculator the runs are evaluated by (build/published-runs.mjs), fetched
// when a page first shows them, not a part of the engine a lab loads (that would put every lab
// route over its 300 KiB first view; BENCHMARKS.md). A page fetches only the calculators it shows.
import { DECODE_STEPS_FILE, REGIMES, RUN_FILES } from './generated/published-runs';
import type { DecodeStepRun, PublishedRun } from './engine';

export { REGIMES };
const loaded = new Map<string, unknown>();
const loading = new Map<string, Promise<unknown>>();

function load(url: string): Promise<unknown> {
  let p = loading.get(url);
  if (!p) {
    p = fetch(url)
      .then((r) => {
        if (!r.ok) throw new Error(`published runs: ${url} answered ${r.status}`);
        return r.json();
      })
      .then((v: unknown) => (loaded.set(url, v), v));
    loading.set(url, p);
  }
  return p;
}

/** The file if it has arrived; otherwise null, and `host` is asked to render again once it has
 *  (a failed fetch is reported on the console and the page shows no runs). */
function get<T>(url: string, host: { requestUpdate(): void }): T | null {
  if (loaded.has(url)) return loaded.get(url) as T;
  load(url).then(() => host.requestUpdate(), (e: unknown) => console.error(e));
  return null;
}

/** The runs evaluated by `calculator` (none where no run is), or null until they have arrived. */
export function publishedRuns(host: { requestUpdate(): void }, calculator: string): PublishedRun[] | null {
  const url = RUN_FILES[calculator];
  return url ? get<PublishedRun[]>(url, host) : [];
}

/** Our own timings of decode steps on real GPUs, or null until they have arrived. */
export function decodeSteps(host: { requestUpdate(): void }): DecodeStepRun[] | null {
  return get<DecodeStepRun[]>(DECODE_STEPS_FILE, host);
}

/** The runs whose band gives the range of `calculator`'s `output` (a regime's runs may be evaluated
 *  by another calculator: whole training runs give compute_budget's range), or null until they have
 *  arrived. A regime limited to some values of a setting (its `when`, as the engine reads it:
 *  collectives by fabric) counts where `setting` gives one of them. */
export function runsCalibrating(host: { requestUpdate(): void }, calculator: string, output: string,
  setting: (name: string) => unknown = () => undefined): PublishedRun[] | null {
  const holds = (when: Record<string, string[]> | undefined) =>
    Object.entries(when ?? {}).every(([name, values]) => values.includes(String(setting(name))));
  const regimes = REGIMES.filter((g) => g.applies_to.some((a) => a.calculator === calculator && a.outputs.includes(output) && holds(a.when)));
  const files = [...new Set(regimes.flatMap((g) => g.run_calculators))].map((c) => publishedRuns(host, c));
  if (files.some((f) => f === null)) return null;
  const ids = new Set(regimes.map((g) => g.id));
  return (files as PublishedRun[][]).flat().filter((m) => ids.has(m.regime));
}

/** A run's hardware as a line shows it: "8 × H100" is one word to the reader, never broken at its spaces. */
export const hardwareWords = (hardware: string): string => hardware.replace(/(\d) × /g, '$1\u00a0×\u00a0');

/** One figure of a source, as a reader reads it: at most three significant digits after the point, a
 *  whole number of 100 or more rounded, thousands grouped ("6668.71 GB/s" → "6,669 GB/s"); a matmul's
 *  shape (4096×4096) left as it is. */
function figureWords(text: string): string {
  if (text.includes(',')) return text;
  const v = Number(text);
  if (!text.includes('.')) return v >= 1000 ? v.toLocaleString('en-US') : text;
  if (v >= 100) return Math.round(v).toLocaleString('en-US');
  return v >= 1 ? String(Number(v.toPrecision(3))) : text;
}

/** A run's published figure as a line shows it: the source's figure in a reader's words (llama-bench's
 *  "tg 512" is "generating 512 tokens", nccl-tests' "all reduce" an AllReduce, a benchmark's name
 *  after what it does (BabelStream, a P2P matrix's diagonal), digits as the course
 *  writes them). The source's own text stays in the data (`published`, never edited) and in the
 *  link's title. */
export function publishedWords(published: string): string {
  return published
    .replace(/ ± [\d.]+ t\/s/, ' tokens/s')
    .replace(/\(tg ?(\d+)\)/, (_, n: string) => `(generating ${figureWords(n)} tokens)`)
    .replace(/\(pp ?(\d+)\)/, (_, n: string) => `(a ${figureWords(n)}-token prompt)`)
    .replace(/\(\d+B_(q4_0|f16)\)/, (_, f: string) => `(${f.toUpperCase()})`)
    .replace('all reduce of', 'AllReduce of').replace('all gather of', 'AllGather of').replace('reduce scatter of', 'ReduceScatter of')
    .replace(' Max GPU RAM', ' peak GPU memory')
    .replace(/ BabelStream (Copy|Triad)$/, ' streaming through memory (BabelStream $1)')
    .replace(/ on the diagonal$/, ' copying within one GPU (the diagonal of a GPU-to-GPU copy test)')
    .replace(' (a profile linked from the book)', '')
    .replace(/(?<![\w.,×])\d+(?:\.\d+)?(?![\w×]|\.\d)/g, figureWords);
}

/** The link title of a run: where in its source the figure is, and the figure as the source prints it. */
export const publishedTitle = (run: PublishedRun): string => `${run.source.where} — as published: ${run.published}`;
