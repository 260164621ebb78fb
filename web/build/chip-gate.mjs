// The course build's chip gate (issue 33 §1): every `:live`, `:verdict`, `:compare`, `::question`
// and `:::tryit` of a chapter is evaluated on every chip the selector offers — the engine's catalog,
// so its kinds (each TPU generation, each datacenter GPU family, workstation, consumer, unified
// memory, CPU) come from one place — and on a measured device (the chip object the browser's
// probe makes, web/src/probe-chip.js, built here from the catalog's consumer GPU). A directive the
// reader would see as "n/a", "—" or an unanswerable question on some chip is a hole: the build
// prints the gate per chapter and fails on a hole. Exempt: a directive pinned to a chip (its
// params name one; a question or Try-it must then give why="…", said on the page), and one inside
// `:::when{kind=…}` / `:::when{calc=… out=…}` blocks on the chips where the block is hidden, and a
// `:live`/`:verdict`/`:compare` with none="…": the words the reader reads where there is no value.
import { probeChip } from '../src/probe-chip.js';
import { whenHolds } from '../src/when.js';
import { isNumberList } from '../src/live-text.js';

/** The chips the gate evaluates on: every catalog chip the selector offers, then a measured device. */
export function gateChips(chips) {
  const consumer = chips.find((c) => c.kind === 'consumer-gpu') ?? chips[0];
  const measured = probeChip({
    adapter: `${consumer.name} (as the browser's probe would measure it)`,
    vendor: consumer.vendor,
    kind: consumer.kind,
    flops: consumer.flops_per_s?.fp32 ?? consumer.flops_per_s?.bf16,
    bytesPerS: consumer.hbm_bytes_per_s,
    bytes: consumer.hbm_bytes,
  });
  return [...chips.map((c) => ({ id: c.id, name: c.name, kind: c.kind, param: c.id })),
    { id: 'measured', name: measured.name, kind: 'measured', param: measured }];
}

/** Why a directive's value would reach the reader empty on this chip, or null when it shows. */
function holeOf(rec, value) {
  if (rec.none !== undefined && rec.kind !== 'question' && rec.kind !== 'tryit') return null; // none="…" is what the reader reads then
  if (value?.error) return `refused: ${value.error.param ?? ''}${value.error.param ? ': ' : ''}${value.error.message}`;
  const v = value?.value;
  if (rec.kind === 'verdict' || rec.kind === 'compare') return typeof v === 'string' || typeof v === 'boolean' ? null : `no verdict (${JSON.stringify(v ?? null)})`;
  if (rec.kind === 'live') return (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'string' || typeof v === 'boolean' || isNumberList(v) ? null : `no number (${JSON.stringify(v ?? null)})`;
  return typeof v === 'number' && Number.isFinite(v) ? null : `no number (${JSON.stringify(v ?? null)})`;
}

/**
 * Runs the gate over the directives one chapter recorded (content.mjs: ctx.gate) and returns
 * { lines, holes }: lines for the build's log, holes as "file:line: directive on chip: why".
 * `evaluateOn(calc, params, out, chipParam)` gives { value } or { error }.
 */
/** The figures of `needs` (chip field paths: "flops_per_s.bf16") a chip object lacks. */
export function missingNeeds(chip, needs) {
  return (needs || []).filter((f) => {
    const v = f.split('.').reduce((o, k) => (o == null ? undefined : o[k]), chip);
    return !(typeof v === 'number' && Number.isFinite(v) && v > 0);
  });
}

export function runGate({ key, records, chips, evaluateOn, relFile, needs }) {
  // A chapter's chip_needs: on a chip without one of those figures the page says so at the top,
  // once, and every number of the chapter names the missing figure (src/chapter.ts): not checked.
  const all = gateChips(chips);
  const gate = all.filter((c) => !missingNeeds(typeof c.param === 'object' ? c.param : chips.find((x) => x.id === c.id), needs).length);
  const unmet = all.length - gate.length;
  const holes = [];
  let checks = 0, pinned = 0, conditional = 0;
  for (const rec of records) {
    const where = `${relFile}:${rec.line}`;
    if (rec.pinnedChip !== undefined) {
      pinned += 1;
      if ((rec.kind === 'question' || rec.kind === 'tryit') && rec.pinnedByParams && !rec.why) {
        holes.push(`${where}: ${rec.label} is pinned to ${JSON.stringify(rec.pinnedChip)} without why="…" saying so on the page`);
      }
      const onChips = rec.pinnedChip === null ? [null] : [rec.pinnedChip];
      for (const chip of onChips) {
        checks += 1;
        const why = holeOf(rec, rec.evaluate(evaluateOn, chip));
        if (why) holes.push(`${where}: ${rec.label} on its pinned chip: ${why}`);
      }
      continue;
    }
    if (rec.when.length) conditional += 1;
    for (const chip of [...gate, ...rec.extraChips.map((id) => ({ id, name: id, kind: '(named)', param: id }))]) {
      const shown = rec.when.every((w) => whenHolds(w, { kind: chip.kind === 'measured' ? chip.param.kind : chip.kind, value: w.calc ? evaluateOn(w.calc, w.params, w.out, chip.param) : undefined }));
      if (!shown) continue;
      checks += 1;
      const why = holeOf(rec, rec.evaluate(evaluateOn, chip.param));
      if (why) holes.push(`${where}: ${rec.label} on ${chip.name}: ${why}`);
    }
  }
  const line = `gate ${key}: ${records.length} directives × ${gate.length} chips${unmet ? ` (+${unmet} lacking its chip_needs, said at the top)` : ''} = ${checks} checks` +
    ` (${pinned} pinned, ${conditional} shown for some chips only): ${holes.length ? `${holes.length} hole(s)` : 'no holes'}`;
  return { line, holes: [...new Set(holes)] };
}
