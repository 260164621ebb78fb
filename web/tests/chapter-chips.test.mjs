// Every chapter read on one chip of each kind the selector offers (issue 33): the page, opened with
// every step shown, has no "n/a", "—", "?" or empty number in view. Table-driven: one page per
// chapter and chip kind. The chips come from the engine's catalog — per kind, the first chip with the
// figures the chapter's chip_needs names — plus a measured device (the probe's chip object, which
// has only an fp32 rate): there the chapter says at its top which figure the catalog lacks, and
// its numbers say so instead of a value. A chapter still marked `chip_gate: report` (being
// rewritten for every chip; the build lists its holes) joins this table when the mark goes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { startServer, launch, watchedPage, WEB } from './harness.mjs';
import { CHIPS, clean } from './lab-helpers.mjs';
import { probeChip } from '../src/probe-chip.js';

let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });

const CONTENT = path.join(WEB, 'content');
const chapters = fs.readdirSync(CONTENT).filter((f) => /^\d\d-[a-z0-9-]+\.md$/.test(f)).sort().map((f) => {
  const meta = YAML.parse(/^---\r?\n([\s\S]*?)\r?\n---/.exec(fs.readFileSync(path.join(CONTENT, f), 'utf8'))[1]);
  return { key: f.replace(/\.md$/, ''), needs: meta.chip_needs || [], gated: meta.chip_gate !== 'report' };
});
const has = (chip, needs) => needs.every((f) => f.split('.').reduce((o, k) => o?.[k], chip) > 0);
const kinds = [...new Set(CHIPS.map((c) => c.kind))];
const consumer = CHIPS.find((c) => c.kind === 'consumer-gpu');
const measured = probeChip({ adapter: `${consumer.name} (measured)`, vendor: consumer.vendor, kind: consumer.kind, flops: consumer.flops_per_s.fp32, bytesPerS: consumer.hbm_bytes_per_s, bytes: consumer.hbm_bytes });

for (const ch of chapters.filter((c) => c.gated)) {
  const picks = kinds.map((kind) => CHIPS.find((c) => c.kind === kind && has(c, ch.needs)) ?? CHIPS.find((c) => c.kind === kind))
    .map((c) => ({ label: c.name, id: c.id, lacking: !has(c, ch.needs) }));
  picks.push({ label: 'a measured device', id: 'custom', custom: measured, lacking: !has(measured, ch.needs) });
  for (const chip of picks) {
    test(`${ch.key} on ${chip.label}: every number in view has a value`, async () => {
      const { page, problems } = await watchedPage(browser.context, server.url);
      await page.addInitScript(({ id, custom, key }) => {
        localStorage.setItem('scalelab.chip', id);
        if (custom) localStorage.setItem('scalelab.customChip', JSON.stringify(custom));
        localStorage.setItem(`scalelab.chapterChipDeclined.${key}`, id); // a chapter of its own chip stays on this one
      }, { id: chip.id, custom: chip.custom, key: ch.key });
      await page.goto(`${server.url}/chapters/${ch.key}/#all`);
      const chipName = chip.custom ? chip.custom.name : chip.label;
      await page.waitForFunction((name) => [...document.querySelectorAll('.chipname')].every((e) => e.textContent === name), chipName, { timeout: 20000 });
      const seen = await page.evaluate(() => {
        const inView = (el) => el.getClientRects().length > 0 && !el.closest('[hidden], details:not([open]) > :not(summary)');
        const numbers = [...document.querySelectorAll('main .live')].filter(inView).map((e) => e.textContent.trim());
        const note = document.querySelector('.chapter-needs');
        return { numbers, needsShown: Boolean(note && !note.hidden), text: document.querySelector('main').innerText };
      });
      assert.equal(seen.needsShown, chip.lacking, `the note on missing figures shows exactly where the chip lacks ${ch.needs.join(', ')}`);
      const empty = seen.numbers.filter((t) => t === '' || t === '—' || t === '?' || /\bn\/a\b|NaN/.test(t) || (!chip.lacking && /^\(no .* figure\)$/.test(t)));
      assert.deepEqual(empty, [], `numbers without a value on ${chipName}`);
      assert.doesNotMatch(seen.text, /\bn\/a\b|NaN/, 'no "n/a" anywhere in view');
      assert.deepEqual(problems, clean);
      await page.close();
    });
  }
}
