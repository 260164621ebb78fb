import { startServer, launch } from './tests/harness.mjs';
const [,, ...specs] = process.argv; // key#step ...
const server = await startServer(); const browser = await launch();
const chips = (process.env.CHIPS || 'tpu-v5e,h100,rtx-4090').split(',');
for (const spec of specs) {
  const [key, step] = spec.split('#');
  for (const chip of chips) for (const width of [1280, 375]) for (const scheme of ['light', 'dark']) {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width, height: width === 375 ? 1400 : 1100 });
    await page.emulateMedia({ colorScheme: scheme });
    await page.addInitScript(({ chip, key }) => { localStorage.setItem('scalelab.chip', chip); localStorage.setItem(`scalelab.chapterChipDeclined.${key}`, chip); }, { chip, key });
    await page.goto(`${server.url}/chapters/${key}/#${step}`);
    await page.waitForTimeout(1500);
    await page.locator('section.step:not([hidden])').screenshot({ path: `/tmp/course/shots/${key.slice(0,2)}-${step}-${chip}-${width}-${scheme}.png` });
    await page.close();
  }
}
await browser.close(); await server.stop();
