// Custom element name → the module that defines it. Modules load lazily, when the element
// comes near the viewport, so a chapter's first view ships neither the lab nor Plot.
// The labs' modules come from their manifests (src/labs/<name>.lab.json → generated/labs.ts,
// written by build/labs.mjs); see README.md in this folder.
import { LAB_MODULES as LABS } from '../generated/labs';

export const LAB_MODULES: Record<string, () => Promise<unknown>> = {
  ...LABS,
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
