// The `:::tryit` container directive (web/content/FORMAT.md): predict → do → check beside a lab.
// It pairs with the nearest `::lab` before it in the same step (no `## heading` between them).
// The page carries the instruction and, for readers without JavaScript, the engine's answer for
// the default chip; the <sl-tryit> element (web/src/tryit.ts) makes it interactive.
//
// content.mjs calls tryitNode() from its directive visitor and hands over its own helpers (`t`),
// so the evaluation, units and formatting are the same as for `::question`.

/** The `dataLab` of the lab this block pairs with: the nearest lab before `index` among the
 *  siblings, not past a step heading; null if there is none. */
function pairedLab(parent, index, what = 'dataLab') {
  const labIn = (n) => {
    if (n.data?.hProperties?.dataLab !== undefined) return what === 'dataLab' ? n.data.hProperties.dataLab : (n.data.hProperties.dataState ?? '');
    for (const c of [...(n.children || [])].reverse()) { const l = labIn(c); if (l !== null) return l; }
    return null;
  };
  for (let i = index - 1; i >= 0; i--) {
    const n = parent.children[i];
    if (n.type === 'heading' && n.depth <= 2) return null;
    const l = labIn(n);
    if (l !== null) return l;
  }
  // a Try-it inside a `:::when` block pairs with the lab before the block
  const outer = parent.data?.slOuter;
  return outer ? pairedLab(outer.parent, outer.index, what) : null;
}

export function tryitNode({ file, node, index, parent, ctx, t }) {
  const a = node.attributes || {};
  ctx.tryits = (ctx.tryits ?? 0) + 1;
  const id = `tryit-${ctx.tryits}`;
  const lab = pairedLab(parent, index);
  if (lab === null) t.contentWarning(file, node, ':::tryit has no ::lab before it in its step to pair with');
  const params = t.parseParams(file, node, a);
  // the chip gate checks the answer on every chip, and on the chip the paired lab's state names
  const labChip = (() => { try { return JSON.parse(pairedLab(parent, index, 'state') || '{}').chip; } catch { return undefined; } })();
  if (params && t.gateRecord) t.gateRecord('tryit', params, typeof labChip === 'string' ? [labChip] : []);
  let unit = a.unit || '', fallback = [t.text('The engine could not compute this one.')];
  if (params && a.calc && a.out) {
    const r = t.evaluate(a.calc, t.withChip(params, a, t.DEFAULT_CHIP));
    if (r.error) t.contentWarning(file, node, `:::tryit ${a.calc}.${a.out}: ${r.error.param}: ${r.error.message}`);
    else if (typeof t.getPath(r.outputs, a.out) !== 'number') t.contentWarning(file, node, `:::tryit: ${a.calc}.${a.out} is not a number`);
    else {
      unit = a.unit ?? t.unitOf(r, a.out);
      const chipName = a.chip === 'fixed' || 'chip' in params ? 'this setting' : t.defaultChipName;
      // the answer only: the block replaces this when JavaScript runs and typesets the steps itself
      fallback = [t.raw(`<p>On ${t.esc(chipName)} the engine gives <strong>${t.esc(t.formatValue(t.getPath(r.outputs, a.out), unit))}</strong>.</p>`)];
    }
  } else t.contentWarning(file, node, ':::tryit needs calc, out and params');
  const tol = a.tol || '0.25';
  if (!(Number(tol) > 0)) t.contentWarning(file, node, `:::tryit tol must be a number above 0, not ${a.tol}`);
  // data-pairs, not data-lab: pairedLab() finds labs by their dataLab
  const props = { className: ['tryit'], dataTryit: id, dataPairs: lab ?? '', dataCalc: a.calc, dataOut: a.out, dataParams: a.params || '{}', dataTol: tol, dataUnit: unit };
  if (a.chip === 'fixed') props.dataChip = 'fixed';
  if (a.hides) props.dataHides = a.hides;
  return t.h('sl-tryit', props, [
    t.h('p', { className: ['tryit-kicker'] }, [t.text('Try it')]),
    t.h('div', { className: ['tryit-body'] }, node.children),
    ...(t.pinnedNote ? t.pinnedNote(params, { ...a, kindWord: 'Try-it' }) : []),
    t.h('details', { className: ['tryit-fallback'] }, [
      t.h('summary', {}, [t.text('The engine\u2019s answer')]),
      ...fallback])]);
}
