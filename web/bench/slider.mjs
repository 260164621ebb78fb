// Shared by the lab latency benchmarks: drag a lab's slider `n` times and time each `input`
// event until the lab's data-rendered attribute changes (its next animation frame, evaluation
// and render included). Positions go back and forth between `from` and `to` (slider units).
export function dragLatency(page, { el, key, from, to, n }) {
  return page.evaluate(async ({ n, el, key, from, to }) => {
    const lab = document.querySelector(el);
    const out = [];
    for (let i = 0; i < n; i++) {
      const range = lab.querySelector(`.control[data-key="${key}"] input[type=range]`);
      const before = lab.dataset.rendered;
      const done = new Promise((resolve) => {
        const mo = new MutationObserver(() => { if (lab.dataset.rendered !== before) { mo.disconnect(); resolve(); } });
        mo.observe(lab, { attributes: true, attributeFilter: ['data-rendered'] });
      });
      const t0 = performance.now();
      range.value = String(from + ((i * 37) % (to - from)));
      range.dispatchEvent(new Event('input', { bubbles: true }));
      await done;
      out.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
    return out;
  }, { n, el, key, from, to });
}
