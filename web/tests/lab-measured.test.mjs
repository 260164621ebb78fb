// "I measured ___ tokens/s" in the decode and serving labs: the reader's own speed as the engine's
// share of the bound, the bandwidth it implies and the engine's sentence on the usual overheads;
// bad values refused in place; the measurement kept in the URL.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage } from './harness.mjs';
import { engine, evaluate, clean, labHelpers, shown } from './lab-helpers.mjs';

let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });

const LABS = [
  // the decode lab's preset (its `start` values) and the serving lab's (a TPU opens on 64 chips, a point
  // on the frontier)
  { el: 'sl-decode-lab', lab: '/labs/decode/', calc: 'decode', bound: 'tokens_per_s',
    params: { chip: 'tpu-v5e', model: 'llama3-8b', batch: 1, context: 128, chips: 4 } },
  { el: 'sl-serving-lab', lab: '/labs/serving/', calc: 'serving', bound: 'throughput_tokens_per_s',
    params: { chip: 'tpu-v5e', chips: 64 } },
];

for (const L of LABS) {
  const { ready, type, field, fieldError, noNaN } = labHelpers({ element: L.el });
  const line = (page) => page.locator(`${L.el} .lab-measured`);

  test(`${L.calc} lab: a measured speed shows the engine's share of the bound, the bandwidth it implies and why`, async () => {
    const { page, problems } = await watchedPage(browser.context, server.url);
    await page.goto(server.url + L.lab);
    await ready(page);
    assert.equal(await line(page).count(), 0, 'no measurement, no line');
    const bound = evaluate(L.calc, L.params).outputs[L.bound];
    const measured = Math.round(bound * 0.6);
    await type(page, 'measured_tokens_per_s', String(measured));
    const want = evaluate(L.calc, { ...L.params, measured_tokens_per_s: measured }).outputs;
    assert.equal(Number(await line(page).getAttribute('data-share')), want.measured_share_of_bound);
    const text = await line(page).innerText();
    assert.ok(text.includes(`${engine.formatQuantity(want.measured_share_of_bound * 100, 'count')} %`), text);
    assert.ok(text.includes(engine.formatQuantity(want.achieved_bytes_per_s, 'bytes/s')), text);
    assert.ok(text.includes(want.measured_verdict), text);
    assert.match(want.measured_verdict, /kernel|attention|quantized/);
    // and where it stands among the published runs of its regime (these labs' chips have a band)
    assert.match(want.measured_among, /^Of the \d+ published runs of /);
    assert.ok(text.includes(want.measured_among), text);
    // faster than the bound: the engine says the inputs cannot match the run
    await type(page, 'measured_tokens_per_s', String(Math.ceil(bound * 3)));
    assert.match(await line(page).innerText(), /Faster than the bound/);
    await noNaN(page);
    assert.deepEqual(problems, clean);
    await page.close();
  });

  test(`${L.calc} lab: bad measurements are refused in place; the measurement round-trips through the URL`, async () => {
    const { page, problems } = await watchedPage(browser.context, server.url);
    await page.goto(server.url + L.lab);
    await ready(page);
    for (const typed of ['0', '-5', '1e12', 'abc']) {
      await type(page, 'measured_tokens_per_s', typed);
      const want = evaluate(L.calc, { ...L.params, measured_tokens_per_s: Number.isFinite(Number(typed)) ? Number(typed) : typed });
      assert.ok(want.error, typed);
      assert.equal(await fieldError(page, 'measured_tokens_per_s'), shown(typed, want.error, L.calc), typed);
      assert.equal(await field(page, 'measured_tokens_per_s').getAttribute('aria-invalid'), 'true');
      await noNaN(page);
    }
    await type(page, 'measured_tokens_per_s', '12');
    assert.equal(await fieldError(page, 'measured_tokens_per_s'), '');
    await page.waitForFunction(() => location.search.includes('measured_tokens_per_s=12'));
    const url = page.url();
    const text = await line(page).innerText();
    await page.goto(url);
    await ready(page);
    assert.equal(await line(page).innerText(), text);
    assert.deepEqual(problems, clean);
    await page.close();
  });
}
