// Custom element name → the module that defines it. Figure modules load lazily, when the
// element comes near the viewport, like the labs (../labs/registry.ts). A chapter places a
// figure with ::figure{name="…"}; build/figures.mjs lists the names and elements.
export const FIGURE_MODULES: Record<string, () => Promise<unknown>> = {
  'sl-fig-roofline': () => import('./hardware'),
  'sl-fig-systolic': () => import('./hardware'),
  'sl-fig-torus': () => import('./hardware'),
  'sl-fig-ring': () => import('./hardware'),
  'sl-fig-transformer': () => import('./model'),
  'sl-fig-parallelism': () => import('./model'),
  'sl-fig-pipeline-schedules': () => import('./model'),
  'sl-fig-training-pod': () => import('./model'),
  'sl-fig-kv-cache': () => import('./inference'),
  'sl-fig-serving': () => import('./inference'),
  'sl-fig-trace': () => import('./inference'),
  'sl-fig-partition': () => import('./inference'),
  'sl-fig-measured-decode': () => import('./inference'),
  'sl-fig-regimes': () => import('./gpu'),
  'sl-fig-gpu': () => import('./gpu'),
  'sl-fig-sm': () => import('./gpu'),
  'sl-fig-nvlink-node': () => import('./gpu'),
};

export function upgradeFigures(root: ParentNode = document) {
  const io = 'IntersectionObserver' in window
    ? new IntersectionObserver((entries) => {
      for (const e of entries) {
        if (!e.isIntersecting) continue;
        io!.unobserve(e.target);
        void FIGURE_MODULES[e.target.localName]?.();
      }
    }, { rootMargin: '400px' })
    : null;
  for (const name of Object.keys(FIGURE_MODULES)) {
    root.querySelectorAll(name).forEach((el) => (io ? io.observe(el) : void FIGURE_MODULES[name]()));
  }
}
