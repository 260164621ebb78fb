// Custom element name → the module that defines it. Modules load lazily, when the element
// comes near the viewport, so a chapter's first view ships neither the lab nor Plot.
// To add a lab: write src/labs/<name>-lab.ts (see README.md), add it here and to
// build/labs.mjs.
export const LAB_MODULES: Record<string, () => Promise<unknown>> = {
  'sl-roofline-lab': () => import('./roofline-lab'),
  'sl-compute-budget-lab': () => import('./compute-budget-lab'),
  'sl-memory-ladder-lab': () => import('./memory-ladder-lab'),
  'sl-collectives-lab': () => import('./collectives-lab'),
  'sl-sharded-matmul-lab': () => import('./sharded-matmul-lab'),
  'sl-model-lab': () => import('./model-lab'),
  'sl-memory-budget-lab': () => import('./memory-budget-lab'),
  'sl-training-pod-lab': () => import('./training-pod-lab'),
  'sl-decode-lab': () => import('./decode-lab'),
  'sl-serving-lab': () => import('./serving-lab'),
  'sl-can-i-run-lab': () => import('./can-i-run-lab'),
  'sl-can-i-fine-tune-lab': () => import('./can-i-fine-tune-lab'),
  'sl-training-comm-lab': () => import('./training-comm-lab'),
  'sl-matmul-experiment': () => import('../matmul/matmul-experiment'),
  'sl-decode-run': () => import('../measure/decode-run/index'), // issue 38: a button; the run loads on it
  'sl-tryit': () => import('../tryit'), // not a lab: the Try-it block beside one, loaded the same way
};

export function upgradeLabs(root: ParentNode = document) {
  const io = 'IntersectionObserver' in window
    ? new IntersectionObserver((entries) => {
      for (const e of entries) {
        if (!e.isIntersecting) continue;
        io!.unobserve(e.target);
        void LAB_MODULES[e.target.localName]?.();
      }
    }, { rootMargin: '400px' })
    : null;
  for (const name of Object.keys(LAB_MODULES)) {
    root.querySelectorAll(name).forEach((el) => (io ? io.observe(el) : void LAB_MODULES[name]()));
  }
}
