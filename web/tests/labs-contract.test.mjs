// The labs' contract, one table for every lab (from the manifests) × one chip of each kind × Plain
// and Technical: the lab answers for the page's chip (a link's chip=), in words for people (no
// engine identifier in Plain, no null/undefined/NaN/JSON, no doubled or bare unit, no e-notation),
// its charts' labels unclipped and readable, the figures its verdict names equal to its table, the
// colours of fits and does-not-fit the same everywhere, its main control and what it moves on screen
// together; then every catalog chip through the page's chip menu, and the state through its URL.
// One page per lab and chip kind: the assertions read that page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage } from './harness.mjs';
import { CHIPS, engine, evaluate } from './lab-helpers.mjs';
import { LABS } from '../build/labs.mjs';

let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });

/** one chip of each kind, and the viewport each is read at (a desk for the datacenter parts, a
 *  phone for the reader's own devices, so every lab is read at both widths) */
const KINDS = [
  { kind: 'tpu', chip: 'tpu-v5e', viewport: { width: 1280, height: 800 } },
  { kind: 'datacenter-gpu', chip: 'h100', viewport: { width: 1280, height: 800 } },
  { kind: 'consumer-gpu', chip: 'rtx-4090', viewport: { width: 375, height: 812 } },
  { kind: 'unified-memory', chip: 'apple-m2-max', viewport: { width: 375, height: 812 } },
  { kind: 'cpu', chip: 'desktop-ddr5', viewport: { width: 1280, height: 800 } },
];
// LABS_ONLY=decode,serving: those labs alone (the inner loop)
const ENGINE_LABS = LABS.filter((l) => l.calculator && (!process.env.LABS_ONLY || process.env.LABS_ONLY.split(',').includes(l.name)));
/** the kinds whose labs say "device" for "chip" (lab-state.ts ONE_DEVICE_KINDS) */
const OWN_KINDS = new Set(['consumer-gpu', 'workstation-gpu', 'unified-memory', 'cpu']);
/** the reader's own kinds of device: a lab opens on one of them */
const ONE_DEVICE = new Set(['consumer-gpu', 'unified-memory', 'cpu']);
/** the labs about the reader's own hardware: they name the chip they answer for */
const OWN_HARDWARE = new Set(['can-i-run', 'can-i-fine-tune']);
// (every lab says "GPUs" of a datacenter GPU's chips, "8 GPUs", "GPU-hours": one word per lab per
// chip kind, lab-element.ts ownWords)
/** the outputs a lab names as a whole batch (a crossover of 93.1 sequences reads "93 sequences"):
 *  the engine's figure, rounded to the nearest whole batch (decode-lab.ts wholeBatch), or, for the
 *  roofline's smallest compute-bound batch, the first whole one at or past it */
const WHOLE_BATCH = { decode: { mlp_flip_batch: Math.round, critical_batch: Math.round, kv_crossover_batch: Math.round }, roofline: { crossover_batch: (v) => Math.ceil(v - 1e-9) } };

const SCHEMA = JSON.parse(engine.calculators());
/** every parameter, output and chip or model field name that is an identifier, not a word */
const IDENTIFIERS = [...new Set([
  ...SCHEMA.calculators.flatMap((c) => [...c.params.map((p) => p.name), ...c.outputs.map((o) => o.name)]),
  ...SCHEMA.chip_fields.map((f) => f.name), ...SCHEMA.model_fields.map((f) => f.name),
])].filter((n) => n.includes('_'));
const IDENTIFIER = new RegExp(`(^|[^\\w-])(${IDENTIFIERS.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})($|[^\\w-])`);

/** What a reader should never see, in any mode: [pattern, what it is]. */
const NEVER = [
  [/\b(null|undefined|NaN|Infinity)\b/, 'a programming value'],
  [/\[object |[{[]\s*"[a-z_]+"\s*:/, 'JSON or an object'],
  [/\b(chips|tokens|sequences|days|FLOPs|bytes|GPUs|parameters|params|hops|layers)[ \u00a0]+\1\b/, 'a unit written twice'],
  [/\b\d[\d.,]*[ \u00a0]?[kMGTPE]?(FLOPs|B|params)[ \u00a0]+(FLOPs|FLOP|parameters|bytes)\b/, 'a unit after a unit'],
  [/\bchips[ \u00a0](ways|H100s|GPUs|chips)\b/, 'a unit after a unit'],
  [/(^|[^\d.,])1 (chips|tokens|sequences|GPUs|layers|days|hops|users|devices)\b/, 'a plural after 1'],
  [/\ba (8|11|18)[\d,]*[-\s]/, '"a" before a number said with a vowel'],
  [/\s\d[\d.,]*\s1\/s\b/, 'a bare unit (1/s)'],
  [/—\s*$|\bn\/a\b/m, 'a dash or n/a where a value should be'],
  [/\bparameters?\b[^()\n]*\(params\)/, 'a unit after its word (parameters … (params))'],
  [/(^|[^\d.,])0\.0\d*\/s\b/, 'a slow rate per second (say it per minute, hour or day)'],
  [/\b(million|billion|trillion) h\b/, 'hours in millions (say days or years, or name what is counted)'],
  [/× 10⁻[⁰¹²³⁴⁵⁶⁷⁸⁹]+ days\b|\b0\.\d+ days\b/, 'less than a day in days (say seconds, minutes or hours)'],
  [/(^|[^\d,.])\d{4,}-way\b/, 'a degree without its thousands separator ("1120-way")'],
];
/** Engine identifiers that are not written with an underscore: choice values, chip kinds and the
 *  book's short names, which Plain says in words (case-sensitive: "NVLink" and "ICI" are words). */
const SHORT_IDENTIFIERS = /(^|[^\w-])(nvlink|ici|ib|dcn|gqa|mla|fsdp|tp|pp|dp|ep|cp|tpu|consumer-gpu|datacenter-gpu|workstation-gpu|unified-memory)($|[^\w-])/;
/** What a chip of a kind must not be said to have, in what the lab says (its settings aside):
 *  [kinds, pattern, what]. The memory and links of a reader's own device are its own. */
const FALSE_ON_CHIP = [
  [['consumer-gpu', 'unified-memory', 'cpu'], /\bHBM\b/, 'HBM on a chip without it'],
  [['consumer-gpu', 'unified-memory', 'cpu'], /\bICI\b/, 'an ICI link on a chip without one'],
  [['consumer-gpu', 'unified-memory', 'cpu'], /\bslice\b/, 'a slice of chips for one device'],
  [['datacenter-gpu', 'consumer-gpu', 'unified-memory', 'cpu'], /\b(switch|move|change) the bandwidth to ICI\b/, 'a hint to a link the chip lacks'],
];

function lint(text, where, { plain }) {
  for (const [re, what] of NEVER) {
    const m = re.exec(text);
    assert.ok(!m, `${where}: ${what}: “${m && text.slice(Math.max(0, m.index - 40), m.index + 60).replace(/\s+/g, ' ')}”`);
  }
  if (plain) {
    const e = /\d(\.\d+)?e[+-]?\d+\b/.exec(text);
    assert.ok(!e, `${where}: e-notation: “${e && text.slice(Math.max(0, e.index - 40), e.index + 60).replace(/\s+/g, ' ')}”`);
    for (const re of [IDENTIFIER, SHORT_IDENTIFIERS]) {
      const m = re.exec(text);
      assert.ok(!m, `${where}: an engine identifier in Plain mode: “${m && text.slice(Math.max(0, m.index - 40), m.index + 60).replace(/\s+/g, ' ')}”`);
    }
  }
}

/** In the page: what the lab shows that the rules read. */
function readLab(el) {
  const lab = document.querySelector(el);
  const text = (n) => (n ? n.innerText : '');
  const fields = [...lab.querySelectorAll('input[type=text]')].map((i) => i.value);
  const figures = [...lab.querySelectorAll('.lab-verdict [data-figure]')].map((f) => {
    const row = lab.querySelector(`.lab-outputs [data-out="${f.dataset.figure}"] dd`);
    return { name: f.dataset.figure, said: f.textContent.trim(), table: row ? row.textContent.trim() : null };
  });
  // a chart's text clipped by its svg, or smaller than 11 px on screen
  const clipped = [], small = [];
  for (const svg of lab.querySelectorAll('.lab-viz svg')) {
    if (svg.closest('svg') !== svg || svg.classList.contains('plot-swatch') || svg.closest('.plot-legend, [class*="-swatches"]')) continue;
    const box = svg.getBoundingClientRect();
    if (!box.width) continue;
    const scale = box.width / (svg.viewBox.baseVal?.width || svg.width.baseVal.value || box.width);
    for (const t of svg.querySelectorAll('text')) {
      if (!t.textContent.trim() || t.closest('[visibility=hidden]')) continue;
      const r = t.getBoundingClientRect();
      if (!r.width) continue;
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) clipped.push(t.textContent.trim());
      const px = parseFloat(getComputedStyle(t).fontSize) * scale;
      if (px < 10.95) small.push(`${t.textContent.trim()} (${px.toFixed(1)} px)`);
    }
  }
  const colour = (sel) => { const n = lab.querySelector(sel); return n ? getComputedStyle(n).color : null; };
  const probe = document.createElement('span');
  lab.append(probe);
  probe.style.color = 'var(--ok)'; const ok = getComputedStyle(probe).color;
  probe.style.color = 'var(--warn)'; const warn = getComputedStyle(probe).color;
  probe.remove();
  const widths = [...lab.querySelectorAll('.lab-viz svg')].filter((s) => s.closest('svg') === s && s.getBoundingClientRect().width > 100).map((s) => s.getBoundingClientRect().width);
  // the main control and what it moves (the chart, else the verdict's first paragraph) within one screen
  const main = lab.querySelector('.lab-main .control');
  const moved = [...lab.querySelectorAll('.lab-viz svg')].find((s) => s.closest('svg') === s && s.getBoundingClientRect().height > 60) ?? lab.querySelector('.lab-verdict .verdict');
  let together = null, screen = null;
  if (main && moved) {
    const a = main.getBoundingClientRect(), b = moved.getBoundingClientRect();
    together = Math.max(a.bottom, b.bottom) - Math.min(a.top, b.top) <= innerHeight;
    // as a reader meets it: the page from its top, scrolled only as far as the main control needs
    // to come on screen; then the control, the whole chart it moves and the verdict's first line
    // are on that one screen
    scrollTo(0, 0);
    main.scrollIntoView({ block: 'nearest' });
    const box = (n) => { const r = n.getBoundingClientRect(); return [Math.round(r.top), Math.round(r.bottom)]; };
    const verdict = lab.querySelector('.lab-verdict');
    screen = { main: box(main), moved: box(moved), verdict: verdict ? box(verdict) : null, height: innerHeight };
  }
  // what the lab says, its settings aside (their menus list every choice, for any chip) and its
  // derivation (the book's symbols)
  const said = lab.cloneNode(true);
  for (const n of said.querySelectorAll('.lab-controls, select, option, .lab-steps')) n.remove();
  // the engine's warnings, read apart (held to the same rules as the rest of what the lab says)
  const warnings = [...said.querySelectorAll('.lab-warnings')].map((n) => { const t = n.textContent; n.remove(); return t; }).join(' ');
  // a chart's tick labels that run into each other
  const collided = [];
  for (const g of lab.querySelectorAll('.lab-viz svg g[aria-label$="tick label"]')) {
    const boxes = [...g.querySelectorAll('text')].filter((t) => t.textContent.trim()).map((t) => ({ t: t.textContent.trim(), r: t.getBoundingClientRect() })).filter((b) => b.r.width);
    for (let i = 1; i < boxes.length; i++) {
      const a = boxes[i - 1].r, b = boxes[i].r;
      if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) collided.push(`${boxes[i - 1].t} / ${boxes[i].t}`);
    }
  }
  // a share (part of a whole) written as a bare fraction, not a percent
  const fractions = [...lab.querySelectorAll('.lab-outputs > div')].map((d) => [d.querySelector('dt')?.textContent ?? '', d.querySelector('dd')?.textContent.trim() ?? ''])
    .filter(([l, v]) => /\bshare\b/i.test(l) && /^0\.\d+$/.test(v)).map(([l, v]) => `${l} ${v}`);
  const labels = [...lab.querySelectorAll('.lab-controls .control')].filter((c) => !c.querySelector('input:disabled, select:disabled')).map((c) => c.querySelector('label')?.innerText ?? '');
  // the outputs' names, and how many devices the parameters the lab sends price (chips, a mesh's axes)
  const outputLabels = [...lab.querySelectorAll('.lab-outputs dt, table th[scope=col]')].map((d) => d.textContent.trim());
  const p = lab.params ? lab.params() : {};
  const product = (xs) => xs.filter((v) => typeof v === 'number').reduce((a, b) => a * b, 1);
  const devices = Math.max(typeof p.chips === 'number' ? p.chips : 1, Array.isArray(p.axes) ? product(p.axes) : 1,
    p.mesh && typeof p.mesh === 'object' ? product(Object.values(p.mesh)) : 1);
  return {
    text: text(lab), said: said.textContent, warnings, fractions, labels, outputLabels, devices, collided, overflow: document.documentElement.scrollWidth - innerWidth,
    units: text(lab.querySelector('.lab-units')),
    fields, figures, clipped, small, widths, together, screen, viewport: innerWidth,
    fits: { yes: colour('.fits-yes'), no: colour('.fits-no'), ok, warn },
    chip: lab.state ? JSON.stringify(lab.currentChip()) : 'the lab has not started', inputChip: JSON.stringify(lab.result?.inputs?.chip ?? null),
    query: location.search,
  };
}

async function waitRendered(page, el) {
  // data-rendered counts evaluations shown: 0 is the engine still loading
  await page.waitForFunction((e) => Number(document.querySelector(e)?.dataset.rendered) > 0, el, { timeout: 30000 });
  // the chart, once its box is near the viewport
  const viz = page.locator(`${el} .lab-viz`);
  if (await viz.count()) {
    await viz.first().scrollIntoViewIfNeeded();
    await page.waitForFunction((e) => { const l = document.querySelector(e); const v = l.querySelector('.lab-viz'); return !v || !l.result || v.dataset.renders === l.dataset.rendered; }, el, { timeout: 30000 });
  }
  await page.evaluate((e) => document.querySelector(e).flush(), el);
}
/** Opens the page's next load in `mode` (as the reader's last choice, kept in storage), without loading a page for it. */
async function setMode(page, mode) {
  await page.addInitScript((m) => { if (!sessionStorage.getItem('scalelab.test.mode')) { sessionStorage.setItem('scalelab.test.mode', m); localStorage.setItem('scalelab.mode', m); } }, mode);
}

function checkPage(got, lab, chip, mode, kind) {
  const where = `${lab.name} on ${chip} (${mode}, ${got.viewport} px)`;
  lint(got.text, where, { plain: mode === 'plain' });
  for (const [kinds, re, what] of FALSE_ON_CHIP) {
    const m = kinds.includes(kind) && re.exec(`${got.said} ${got.warnings}`);
    assert.ok(!m, `${where}: ${what}: “${m && got.said.slice(Math.max(0, m.index - 40), m.index + 60).replace(/\s+/g, ' ')}”`);
  }
  if (kind === 'tpu' && mode === 'plain') for (const l of got.labels) assert.doesNotMatch(l, /\bGPUs?\b/, `${where}: a setting for GPUs on a TPU page: ${l}`);
  // a chip without ICI offers no ICI setting; the reader's own device is one device, named so
  if (kind !== 'tpu' && mode === 'plain') for (const l of got.labels) assert.doesNotMatch(l, /\bICI\b/, `${where}: an ICI setting on a chip without ICI: ${l}`);
  if (ONE_DEVICE.has(kind)) {
    if (mode === 'plain') for (const l of [...got.labels, ...got.outputLabels]) assert.doesNotMatch(l.replace(/^Chip for this lab\b.*/s, ''), /\bchips?\b/i, `${where}: "chip" for the reader's own device: ${l}`);
    assert.equal(got.devices, 1, `${where}: opens priced on ${got.devices} devices, not the reader's one`);
  }
  // unified memory: the usable share is said beside the memory it is a share of
  if (kind === 'unified-memory' && got.units) assert.match(got.units, /GPU may use/, `${where}: the memory note leaves out the GPU's share of unified memory`);
  assert.deepEqual(got.fractions, [], `${where}: a share shown as a fraction, not a percent`);
  assert.deepEqual(got.collided, [], `${where}: chart tick labels run into each other`);
  assert.ok(got.overflow <= 0, `${where}: the page is ${got.overflow} px wider than the screen`);
  for (const f of got.fields) assert.doesNotMatch(f, /\d(\.\d+)?e[+-]?\d+/, `${where}: a field reads ${f}`);
  for (const f of got.figures) if (f.table !== null) assert.equal(f.said, f.table, `${where}: the verdict says ${f.name} is ${f.said}, the table ${f.table}`);
  assert.deepEqual(got.clipped, [], `${where}: chart labels clipped`);
  assert.deepEqual(got.small, [], `${where}: chart labels under 11 px`);
  for (const w of got.widths) assert.ok(w >= 300, `${where}: a chart ${w} px wide`);
  if (got.fits.yes) assert.equal(got.fits.yes, got.fits.ok, `${where}: "fits" in the fits colour`);
  if (got.fits.no) assert.equal(got.fits.no, got.fits.warn, `${where}: "does not fit" in the does-not-fit colour`);
  assert.equal(got.chip, JSON.stringify(chip), `${where}: the lab answers for the page's chip`);
  if (got.inputChip !== 'null') assert.equal(got.inputChip, JSON.stringify(chip), `${where}: the result is for the page's chip`);
  if (got.together !== null) assert.ok(got.together, `${where}: the main control and the chart or verdict it moves do not fit on one screen`);
  if (got.screen && ONE_SCREEN.has(lab.name)) {
    const { main, moved, verdict, height } = got.screen;
    const on = ([top, bottom]) => top >= 0 && bottom <= height;
    assert.ok(on(main) && on(moved), `${where}: the main control (${main.join('–')} px) and the chart it moves (${moved.join('–')} px) are not on one ${height} px screen`);
    // at a desk, the verdict's first line too (a phone's screen holds the control and the chart)
    if (verdict && got.viewport >= 1000) assert.ok(verdict[0] + 20 <= height, `${where}: the verdict starts at ${verdict[0]} px, under the ${height} px screen's edge`);
  }
}
/** the labs whose main control, its chart and the verdict's first line share the reader's first
 *  screen (issue 34 §3: 375 × 812 and 1280 × 800), checked as the reader meets the lab's page */
const ONE_SCREEN = new Set(['decode', 'serving', 'roofline', 'collectives', 'sharded-matmul', 'memory-ladder', 'model',
  'memory-budget', 'training-pod', 'training-comm', 'compute-budget', 'can-i-run', 'can-i-fine-tune']);

for (const lab of ENGINE_LABS) {
  test(`${lab.name}: every chip kind, Plain and Technical`, async () => {
    for (const { kind, chip, viewport } of KINDS) {
      const { page, problems } = await watchedPage(browser.context, server.url);
      await page.setViewportSize(viewport);
      await setMode(page, 'plain');
      await page.goto(`${server.url}/labs/${lab.name}/?chip=${chip}`);
      await waitRendered(page, lab.element);
      assert.equal(await page.locator('#chip-select').inputValue(), chip, `${lab.name}: the page's chip selector shows the link's chip`);
      const plain = await page.evaluate(readLab, lab.element);
      checkPage(plain, lab, chip, 'plain', kind);
      if (OWN_HARDWARE.has(lab.name)) {
        const name = CHIPS.find((c) => c.id === chip).name;
        assert.ok(plain.text.includes(name), `${lab.name} on ${chip}: the verdict names the chip it answers for (${name})`);
      }
      // Technical: the same page, its words switched
      await page.locator('.mode-switch button[data-mode="technical"]').click();
      await page.evaluate((e) => document.querySelector(e).updateComplete, lab.element);
      checkPage(await page.evaluate(readLab, lab.element), lab, chip, 'technical', kind);
      assert.deepEqual(problems.errors, [], `${lab.name} on ${chip}: page errors`);
      await page.close();
    }
  });
}

// Every catalog chip through the page's chip menu (no reload): the lab follows, in words; then the
// state through the URL: a moved main control and the chip come back from the address.
for (const lab of ENGINE_LABS) {
  test(`${lab.name}: follows the page's chip through the catalog; the URL round-trips`, async () => {
    const { page, problems } = await watchedPage(browser.context, server.url);
    await page.setViewportSize({ width: 1280, height: 800 });
    await setMode(page, 'plain');
    await page.goto(`${server.url}/labs/${lab.name}/`);
    await waitRendered(page, lab.element);
    for (const c of CHIPS) {
      const before = await page.locator(lab.element).getAttribute('data-rendered');
      await page.selectOption('#chip-select', c.id);
      await page.waitForFunction(([e, b]) => document.querySelector(e).dataset.rendered !== b, [lab.element, before]);
      await page.evaluate((e) => document.querySelector(e).flush(), lab.element);
      const got = await page.evaluate(readLab, lab.element);
      lint(got.text, `${lab.name} on ${c.id} (the page's chip menu)`, { plain: true });
      assert.equal(got.chip, JSON.stringify(c.id), `${lab.name}: follows the page's chip to ${c.id}`);
      // every number in the outputs' table is the engine's, for the parameters the lab sent
      const { params, table } = await page.evaluate((e) => {
        const l = document.querySelector(e);
        return { params: l.params(), table: Object.fromEntries([...l.querySelectorAll('.lab-outputs [data-out]')].map((d) => [d.dataset.out, d.querySelector('dd').textContent.trim()])) };
      }, lab.element);
      const want = evaluate(lab.calculator, params);
      if (!want.error) {
        for (const [name, text] of Object.entries(table)) {
          const whole = WHOLE_BATCH[lab.name]?.[name];
          const v = typeof want.outputs[name] === 'number' && whole ? Math.max(1, whole(want.outputs[name])) : want.outputs[name];
          if (typeof v !== 'number') continue;
          const unit = engine.outputUnit(lab.calculator, name);
          const formatted = unit === 'bytes' && v < 0 ? `${engine.formatQuantity(-v, unit)} short` : engine.formatQuantity(v, unit);
          // on a reader's own device a count of chips reads as devices ("1 device", "7.79 device-hours")
          const said = OWN_KINDS.has(c.kind) ? formatted.replace(/\b([Cc])hip(s?)\b/g, (_m, ch, pl) => `${ch === 'C' ? 'D' : 'd'}evice${pl}`)
            : c.kind === 'datacenter-gpu' ? formatted.replace(/\b[Cc]hip(s?)\b/g, (_m, pl) => `GPU${pl}`) : formatted;
          assert.equal(text, said, `${lab.name} on ${c.id}: ${name}`);
        }
      }
    }
    // back on the H100, the main control moved one step: the address carries the state
    await page.selectOption('#chip-select', 'h100');
    await waitRendered(page, lab.element);
    const main = page.locator(`${lab.element} .lab-main input[type=range]`).first();
    if (await main.count()) {
      const before = await page.locator(lab.element).getAttribute('data-rendered');
      const start = await main.inputValue();
      await main.focus();
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowLeft');
      // a slider that starts at its lowest step moves the other way
      if (await main.inputValue() === start) for (const k of ['ArrowRight', 'ArrowRight']) await page.keyboard.press(k);
      await page.waitForFunction(([e, b]) => document.querySelector(e).dataset.rendered !== b, [lab.element, before]);
    }
    if (await page.evaluate((e) => document.querySelector(e).usesChip, lab.element)) await page.waitForFunction(() => /[?&]chip=h100\b/.test(location.search), null, { timeout: 5000 });
    await page.waitForTimeout(400); // the address is written 250 ms after the last input
    const url = page.url();
    const verdict = await page.locator(`${lab.element} .lab-verdict`).innerText();
    const { page: again, problems: p2 } = await watchedPage(browser.context, server.url);
    await again.goto(url);
    await waitRendered(again, lab.element);
    assert.equal(await again.locator(`${lab.element} .lab-verdict`).innerText(), verdict, `${lab.name}: the same verdict from the address ${new URL(url).search}`);
    assert.deepEqual(p2.errors, []);
    assert.deepEqual(problems.errors, []);
    await again.close();
    await page.close();
  });
}
