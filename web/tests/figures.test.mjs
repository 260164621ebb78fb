// The figures (web/src/figures/, placed with ::figure in chapters 1–12): each draws an SVG with
// a text alternative that carries a number the engine computes for the page's chip; stepping or
// dragging it changes that text; a chip switch redraws it; axe finds nothing serious.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { startServer, launch, watchedPage, pageWithoutScripts, scrollUntilVisible } from './harness.mjs';
import { engine, evaluate, MODELS, PUBLISHED, clean } from './lab-helpers.mjs';

const require = createRequire(import.meta.url);
/** axe-core's serious and critical violations inside one figure (as harness.mjs's axe, scoped) */
async function axeFigure(page, name) {
  if (!(await page.evaluate(() => !!window.axe))) await page.evaluate(fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const r = await page.evaluate((sel) => window.axe.run(sel, { resultTypes: ['violations'] }), `[data-figure="${name}"]`);
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}

let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });

const q = (v, unit) => engine.formatQuantity(v, unit);
const out = (calc, params, name) => {
  const r = evaluate(calc, params);
  assert.ok(!r.error, `${calc}: ${JSON.stringify(r.error)}`);
  return r.outputs[name];
};
const CHIP = 'tpu-v5e';
const llama70 = MODELS.find((m) => m.id === 'llama3-70b');

// chapter, figure, and a number the engine gives for the figure's opening state on the default chip
const FIGURES = [
  { ch: '01-rooflines', name: 'roofline', expect: () => q(out('chip', { chip: CHIP }, 'critical_intensity'), '') },
  { ch: '02-tpus', name: 'systolic', expect: () => q(out('chip', { chip: CHIP }, 'flops_per_s').bf16, 'FLOP/s') },
  { ch: '02-tpus', name: 'torus', expect: () => q(out('collective', { chip: CHIP, op: 'all_gather', bytes: 2 ** 30, axes: [16], wraparound: false }, 't_s'), 's') },
  { ch: '03-sharded-matmuls', name: 'ring', expect: () => q(out('collective', { chip: CHIP, op: 'all_gather', bytes: 2 ** 27, axes: [4, 4] }, 't_s'), 's') },
  { ch: '04-transformer-math', name: 'transformer', expect: () => q(out('transformer', { model: 'llama3-70b' }, 'params_attention'), 'count') },
  { ch: '05-training', name: 'parallelism', expect: () => q(out('training_memory', { chip: CHIP, chips: 8, dp: 8 }, 'bytes_per_chip'), 'bytes') },
  // the four schedules again, on the chapter's TPU: zero-bubble's step for the opening state
  { ch: '05-training', name: 'pipeline-schedules', expect: () => q(out('training_run', { chip: CHIP, model: 'llama3-8b', T: 4096, chips: 32, batch_tokens: 8 * 8 * 4096, search: false, layout: { tp: 1, pp: 4, dp: 8, zero_stage: 1, micro_batch: 1, checkpointing: 'full', schedule: 'zero_bubble' } }, 'layout_check').step_s, 's'),
    // ZB-H1's order: weight-gradient passes fill the idle time, the first ones well before the last backward pass
    check: async (fig) => {
      const xs = (what) => fig.locator(`rect[data-what="${what}"]`).evaluateAll((rs) => rs.map((r) => Number(r.getAttribute('x'))));
      const [w, b] = [await xs('W'), await xs('B')];
      assert.ok(w.length && Math.min(...w) < Math.max(...b), `a weight-gradient pass before the last backward pass (W from ${Math.min(...w)}, B up to ${Math.max(...b)})`);
    } },
  { ch: '06-training-llama', name: 'training-pod', expect: async (fig) => {
    const chips = Number(await fig.locator('select').last().inputValue());
    assert.equal(chips, 8960, 'the figure opens on the 8,960 chips the step prices');
    return q(out('training_run', { chip: CHIP, model: 'llama3-70b', top_n: 5, chips }, 'layouts')[0].step_s, 's');
  } },
  { ch: '07-inference', name: 'kv-cache', expect: () => q(out('decode', { chip: CHIP, batch: 32, context: 8192 }, 'kv_bytes_total'), 'bytes') },
  { ch: '07-inference', name: 'measured-decode', expect: () => q(out('decode', { chip: 'h200', model: 'llama3-8b', chips: 1, batch: 1, context: 0 }, 'step_s'), 's') },
  { ch: '08-serving-llama', name: 'serving', expect: () => q(out('serving', { chip: CHIP, batch: 32 }, 'tokens_per_s_per_chip'), 'count') },
  { ch: '09-profiling', name: 'trace', expect: () => q(out('roofline', { chip: CHIP, matmul: { B: 2048, D: llama70.D, F: llama70.F } }, 't_lower_s'), 's') },
  { ch: '10-jax', name: 'partition', expect: () => q(out('sharding', { shape: [1024, 4096], spec: 'A[I_X, J_Y]', mesh: { X: 2, Y: 4 } }, 'local_bytes'), 'bytes') },
  { ch: '11-conclusions', name: 'regimes', expect: () => q(out('roofline', { chip: CHIP, flops: 1e9, bytes: 1e6, bandwidth: 'ici' }, 'critical_intensity'), 'count') },
  { ch: '12-gpus', name: 'gpu', expect: () => q(out('chip', { chip: 'h100' }, 'hbm_bytes_per_s'), 'bytes/s') },
  { ch: '12-gpus', name: 'sm', expect: () => q(out('chip', { chip: 'h100', chip_overrides: { sms: 132, subpartitions_per_sm: 4, fp32_cores_per_subpartition: 32, tensor_cores_per_sm: 4, registers_per_subpartition: 16384, clock_hz: 1.76e9 } }, 'tensor_core_flops_per_cycle'), 'count') },
  // the zero-bubble schedule's step for the opening state (LLaMA-3 8B, 4 stages × 8 replicas, 8 micro-batches) on the chapter's H100
  { ch: '12-gpus', name: 'pipeline-schedules', expect: () => q(out('training_run', { chip: 'h100', model: 'llama3-8b', T: 4096, chips: 32, batch_tokens: 8 * 8 * 4096, search: false, layout: { tp: 1, pp: 4, dp: 8, zero_stage: 1, micro_batch: 1, checkpointing: 'full', schedule: 'zero_bubble' } }, 'layout_check').step_s, 's') },
  { ch: '12-gpus', name: 'nvlink-node', expect: () => q(out('chip', { chip: 'h100' }, 'node_nvlink_bytes_per_s'), 'bytes/s') },
];

/** open a chapter at the step holding the figure; returns the figure's element once drawn */
async function openFigure(page, ch, name) {
  await page.goto(`${server.url}/chapters/${ch}/`);
  const host = page.locator(`[data-figure="${name}"]`).first(); // the first placement (chapter 7 has two measured runs)
  assert.ok(await page.locator(`[data-figure="${name}"]`).count() >= 1, `${ch} places the ${name} figure`);
  const step = await host.evaluate((e) => e.closest('section.step').id);
  await page.goto(`${server.url}/chapters/${ch}/#${step}`);
  await page.reload();
  // the figure's module loads once its box nears the viewport (figures/registry.ts)
  if (!(await scrollUntilVisible(page, host, host.locator('svg.fig-svg[role="img"]')))) {
    const seen = await host.evaluate((e) => ({ text: e.textContent.trim().slice(0, 200), defined: !!customElements.get(e.localName), hidden: !!e.closest('[hidden]'), url: location.href }));
    assert.fail(`${ch}: the ${name} figure was not drawn within 20 s: ${JSON.stringify(seen)}`);
  }
  // drawn once the engine is there, which may move it: in view again before a test points at it
  await host.locator('svg.fig-svg').scrollIntoViewIfNeeded();
  return host;
}
const label = (fig) => fig.locator('svg.fig-svg').getAttribute('aria-label');
async function changed(fig, before, what) {
  for (let i = 0; i < 200 && (await label(fig)) === before; i++) await new Promise((r) => setTimeout(r, 25));
  assert.notEqual(await label(fig), before, `${what} changes the figure's text`);
}
/** step, slide or pick: the figure's first stepper, else slider, else select */
async function operate(fig) {
  if (await fig.locator('button.fig-next').count()) return fig.locator('button.fig-next').click();
  if (await fig.locator('input[type=range]').count()) {
    return fig.locator('input[type=range]').first().evaluate((el) => {
      el.value = String(Math.min(Number(el.max), Number(el.value) + 3));
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
  }
  const sel = fig.locator('select').first();
  const values = await sel.locator('option').evaluateAll((os) => os.map((o) => o.value));
  return sel.selectOption(values.find((v) => v !== '' && v !== values[0]) ?? values[1]);
}

test('every chapter 1–12 draws a figure with an engine number in its text, and operating it changes the text', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + '/about/');
  await page.evaluate(() => localStorage.clear());
  const chapters = new Set();
  for (const f of FIGURES) {
    const fig = await openFigure(page, f.ch, f.name);
    const text = await label(fig);
    const want = await f.expect(fig);
    assert.ok(text.includes(want), `${f.name}: “${want}” (from the engine) in “${text}”`);
    assert.equal(await fig.locator('figcaption.fig-alt').innerText(), text, `${f.name}: the caption repeats the text alternative`);
    assert.doesNotMatch(text, /NaN|undefined|Infinity/, `${f.name}: no broken numbers`);
    await f.check?.(fig);
    await operate(fig);
    await changed(fig, text, `operating ${f.name}`);
    assert.deepEqual(await axeFigure(page, f.name), [], `${f.name}: axe finds no serious violation`);
    chapters.add(f.ch);
  }
  assert.equal(chapters.size, 12, 'one figure or more in each of chapters 1–12');
  assert.deepEqual(problems, clean);
});

test('dragging the roofline point changes its intensity; switching the chip redraws with that chip\u2019s numbers', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + '/about/');
  await page.evaluate(() => localStorage.clear());
  const fig = await openFigure(page, '01-rooflines', 'roofline');
  const before = await label(fig);
  const box = await fig.locator('svg.fig-svg').boundingBox();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.9, box.y + box.height * 0.5, { steps: 5 });
  await page.mouse.up();
  await changed(fig, before, 'dragging the point');
  assert.match(await label(fig), /compute-bound/, 'dragged right of the ridge, the point is compute-bound');
  const v5e = await label(fig);
  await page.selectOption('#chip-select', 'tpu-v5p');
  await changed(fig, v5e, 'switching the chip');
  assert.ok((await label(fig)).includes(q(out('chip', { chip: 'tpu-v5p' }, 'critical_intensity'), '')), 'the v5p ridge from the engine');
  // the GPU figure follows the page chip when it is a GPU
  const gpu = await openFigure(page, '12-gpus', 'gpu');
  assert.match(await label(gpu), /H100/, 'a TPU page chip shows the chapter\u2019s H100');
  const h100 = await label(gpu);
  await page.selectOption('#chip-select', 'h200');
  await changed(gpu, h100, 'switching to a GPU');
  assert.ok((await label(gpu)).includes(q(out('chip', { chip: 'h200' }, 'hbm_bytes_per_s'), 'bytes/s')));
  // on one of the reader's own devices the KV-cache figure draws a model that fits the card (an 8B), in its memory's name
  await page.selectOption('#chip-select', 'rtx-4090');
  const kv = await openFigure(page, '07-inference', 'kv-cache');
  await page.waitForFunction(() => /GeForce RTX 4090/.test(document.querySelector('[data-figure="kv-cache"] svg.fig-svg')?.getAttribute('aria-label') ?? ''));
  const fits = out('decode', { chip: 'rtx-4090', model: 'llama3-8b', batch: 32, context: 8192 }, 'max_batch');
  assert.ok(fits >= 1, 'an 8B model leaves room for a cache on a 24 GB card');
  assert.match(await label(kv), new RegExp(`^LLaMA-3 8B on 1 GeForce RTX 4090 device with .* of GDDR6X memory: .*at most ${q(fits, 'count')} sequences fit\\.$`));
  assert.deepEqual(problems, clean);
});

test('the measured H200 decode steps: the two measured regimes meet where the data puts them, beside the engine\u2019s critical batch', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  const fig = await openFigure(page, '07-inference', 'measured-decode');
  const run = PUBLISHED.decode_steps[0];
  const [b0, t0] = run.rows[0], [b1, t1] = run.rows[run.rows.length - 1];
  const knee = t0 / (t1 / b1);
  const crit = out('decode', { chip: run.chip, model: run.model, chips: run.chips, batch: b0, context: run.context }, 'critical_batch');
  const text = await label(fig);
  assert.ok(text.includes(`meet near batch ${q(knee, 'count')}`), `the knee from the rows in \u201c${text}\u201d`);
  assert.ok(text.includes(`critical batch is ${q(crit, 'count')}`), 'the engine\u2019s critical batch for the measured chip');
  assert.equal(await fig.locator('circle.fig-dot').count(), run.rows.length, 'one dot per measured batch');
  // the run with 8,192-token caches, placed further down: the engine's bound at the placement's batch
  const cached = PUBLISHED.decode_steps.find((r) => r.context > 0);
  const host = page.locator(`[data-figure="measured-decode"][data-state*="${cached.id}"]`);
  await page.goto(`${server.url}/chapters/07-inference/#all`);
  assert.ok(await scrollUntilVisible(page, host, host.locator('svg.fig-svg[role="img"]')), 'the cached run is drawn');
  const cachedText = await host.locator('svg.fig-svg').getAttribute('aria-label');
  const [b, measured] = cached.rows.find(([batch]) => batch === 32);
  const bound = out('decode', { chip: cached.chip, model: cached.model, chips: cached.chips, batch: b, context: cached.context }, 'step_s');
  assert.ok(cachedText.includes(`At batch 32 it takes ${q(measured, 's')} against the engine's bound of ${q(bound, 's')}`), cachedText);
  assert.ok(bound <= measured, 'the bound holds');
  assert.deepEqual(problems, clean);
});

test('without JavaScript each figure is a caption saying what it shows', async () => {
  const { page, close } = await pageWithoutScripts();
  try {
    for (const ch of new Set(FIGURES.map((f) => f.ch))) {
      await page.goto(`${server.url}/chapters/${ch}/`);
      const texts = await page.locator('.sl-figure-host .fig-fallback').allInnerTexts();
      assert.ok(texts.length >= 1 && texts.every((t) => /^Figure: .{40,}/.test(t)), `${ch}: ${texts.join(' | ')}`);
    }
  } finally { await close(); }
});

test('a figure refuses a bad setting with a note naming it, and shows an engine refusal in place', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + '/about/');
  await page.evaluate(() => localStorage.clear());
  await openFigure(page, '03-sharded-matmuls', 'ring'); // loads the module that defines ring and roofline
  const add = (tag, state) => page.evaluate(([t, s]) => {
    const el = document.createElement(t);
    el.dataset.state = s;
    el.dataset.figure = `bad-${t}`;
    document.querySelector('main').append(el);
  }, [tag, state]);
  await add('sl-fig-ring', '{"X":3}');
  const ring = page.locator('[data-figure="bad-sl-fig-ring"]');
  await ring.locator('svg.fig-svg').waitFor();
  assert.match(await ring.locator('.fig-problem').innerText(), /X chips “3” is not offered here \(allowed: 2, 4, 8\)/);
  assert.match(await label(ring), /4×4 mesh|axis X takes/);
  await add('sl-fig-roofline', '{"I":"lots"}');
  const roof = page.locator('[data-figure="bad-sl-fig-roofline"]');
  await roof.locator('svg.fig-svg').waitFor();
  assert.match(await roof.locator('.fig-problem').innerText(), /intensity “lots” is refused: it must be a number from/);
  assert.doesNotMatch(await label(roof), /NaN/);
  await openFigure(page, '07-inference', 'kv-cache');
  await add('sl-fig-kv-cache', '{"batch":0}');
  const kv = page.locator('[data-figure="bad-sl-fig-kv-cache"]');
  await kv.locator('.fig-problem').waitFor();
  assert.match(await kv.locator('.fig-problem').innerText(), /batch/, 'the engine\u2019s refusal names the batch');
  assert.equal(await kv.locator('svg').count(), 0, 'no drawing from a refused setting');
  assert.deepEqual(problems, clean);
});

// Each figure names the calculators it evaluates (FigureElement.calculators), for the engine's
// warm-up: the list must be exactly the calculators of its evaluate calls, read from its source.
test('every figure declares the calculators it evaluates', () => {
  const dir = new URL('../src/figures/', import.meta.url);
  let figures = 0;
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'figure.ts')) {
    const classes = fs.readFileSync(new URL(file, dir), 'utf8').split(/^(?=export class )/m).slice(1);
    for (const text of classes) {
      const name = /^export class (\w+)/.exec(text)[1];
      const used = [...new Set([...text.matchAll(/this\.evaluate\('([a-z_]+)'/g)].map((m) => m[1]))].sort();
      const declared = /static override readonly calculators = \[([^\]]*)\]/.exec(text)?.[1].match(/[a-z_]+/g) ?? [];
      assert.deepEqual([...declared].sort(), used, `${file} ${name}`);
      assert.doesNotMatch(text, /this\.evaluate\((?!')/, `${file} ${name}: evaluate's calculator is a literal name`);
      figures += used.length > 0;
    }
  }
  assert.ok(figures >= 14, `${figures} figures evaluate`);
});

/** Opens a figure at a phone's width (375 px, the larger text) and then a desktop's, calling
 * check(page, fig, width) on each; the page must stay free of console errors throughout. */
async function atPhoneAndDesktop(ch, name, check) {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + '/about/');
  await page.evaluate(() => localStorage.clear());
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    await check(page, await openFigure(page, ch, name), width);
  }
  assert.deepEqual(problems, clean);
}

// The roofline figure's own labels: the point's value stays inside the drawing and off the ridge and
// region labels at every slider position, on a phone (larger text) and on a desktop.
test('the roofline figure\u2019s point label stays inside the drawing and off the other labels at every intensity', () => atPhoneAndDesktop('01-rooflines', 'roofline', async (page, fig, width) => {
  const slider = fig.locator('input[type=range]');
  const last = Number(await slider.getAttribute('max'));
  for (let i = 0; i <= last; i++) {
    await slider.evaluate((el, v) => { el.value = String(v); el.dispatchEvent(new Event('input', { bubbles: true })); }, i);
    await page.waitForFunction(([v]) => document.querySelector('[data-figure="roofline"] input[type=range]').value === String(v), [i]);
    const clash = await fig.evaluate((host) => {
      const svg = host.querySelector('svg.fig-svg');
      const label = svg.querySelector('.point-label');
      const b = label.getBoundingClientRect(), s = svg.getBoundingClientRect();
      if (b.left < s.left || b.right > s.right) return `outside the drawing: ${label.textContent}`;
      for (const other of svg.querySelectorAll('text.fig-text:not(.point-label)')) {
        const o = other.getBoundingClientRect();
        if (!(b.right <= o.left || o.right <= b.left || b.bottom <= o.top || o.bottom <= b.top)) return `“${label.textContent}” over “${other.textContent}”`;
      }
      return '';
    });
    assert.equal(clash, '', `at ${width} px, slider position ${i}`);
  }
}));

// Chapter 11's rungs: each "compute-bound above …" stays inside its bar's compute-bound part.
test('the regimes figure\u2019s rung names and thresholds stay inside their parts of each rung', () => atPhoneAndDesktop('11-conclusions', 'regimes', async (page, fig, width) => {
  for (const chip of ['tpu-v5e', 'tpu-v5p', 'h100']) {
    const before = await label(fig);
    await page.selectOption('#chip-select', chip);
    if (chip !== 'tpu-v5e') await changed(fig, before, `switching to ${chip}`);
    const outside = await fig.evaluate((host) => {
      const svg = host.querySelector('svg.fig-svg');
      const inside = (texts, rects) => {
        const parts = [...svg.querySelectorAll(rects)].map((r) => r.getBoundingClientRect());
        return [...svg.querySelectorAll(texts)].map((el, k) => {
          const b = el.getBoundingClientRect(), p = parts[k];
          return b.left >= p.left - 0.5 && b.right <= p.right + 0.5 ? '' : `“${el.textContent}” leaves its part of the bar`;
        });
      };
      return [...inside('.rung-threshold', 'rect.ok'), ...inside('.rung-name', 'rect.warn')].filter(Boolean);
    });
    assert.deepEqual(outside, [], `at ${width} px on ${chip}`);
  }
  await page.selectOption('#chip-select', 'tpu-v5e');
}));

// Chapter 4's layer: each block's name and shape stay apart and inside the drawing, for every model.
test('the transformer figure\u2019s names and shapes stay apart and inside the drawing for every model', () => atPhoneAndDesktop('04-transformer-math', 'transformer', async (page, fig, width) => {
  for (const model of MODELS.map((m) => m.id)) {
    await fig.locator('select').selectOption(model);
    const clashes = await fig.evaluate((host) => {
      const svg = host.querySelector('svg.fig-svg'), s = svg.getBoundingClientRect();
      const names = [...svg.querySelectorAll('.block-name')], shapes = [...svg.querySelectorAll('.block-shape')];
      return shapes.map((shape, k) => {
        const a = names[k].getBoundingClientRect(), b = shape.getBoundingClientRect();
        if (a.right > b.left) return `${names[k].textContent} runs into its shape`;
        return b.right <= s.right ? '' : `${shape.textContent} leaves the drawing`;
      }).filter(Boolean);
    });
    assert.deepEqual(clashes, [], `at ${width} px, ${model}`);
  }
}));
