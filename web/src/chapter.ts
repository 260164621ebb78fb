// A chapter page: steps clicked through, live numbers, check-yourself questions.
import { engineLoadProblem, getEngine, getPath, isError, type Engine, type Outcome, type Result } from './engine';
import { chipFromLink, chipId, chipParam, DEFAULT_CHIP, progress, saveProgress, setChip, type Progress } from './state';
import { parseNumber, percent } from './format';
import { chipNeedsShort, chipNeedsText, compareText, digitsText, isNumberList, numberListText, verdictText } from './live-text.js';
import { whenHolds, type WhenCondition } from './when.js';
import { loadKatex, stepsHtml } from './tex';

export function initChapter(article: HTMLElement) {
  initStepper(article);
  initQuestions(article);
  adoptChapterChip(article);
  // the page was rendered for its own chip (chapter 12: the H100) or the course's default
  const rendered = article.dataset.chip ?? DEFAULT_CHIP;
  if (JSON.stringify(chipParam()) !== JSON.stringify(rendered)) void refreshLive(article);
  window.addEventListener('sl-chip-change', () => void refreshLive(article));
}

// ---------------------------------------------------------------- a chapter's own chip
// A chapter written for one chip (data-chip) switches the page's chip to it on entry, says
// so, and offers the way back; once the reader goes back, it no longer switches.
const declinedKey = (key: string) => `scalelab.chapterChipDeclined.${key}`;
function adoptChapterChip(article: HTMLElement) {
  const own = article.dataset.chip;
  const note = article.querySelector<HTMLElement>('.chapter-chip');
  if (!own || !note) return;
  const select = document.querySelector<HTMLSelectElement>('#chip-select');
  const nameOf = (id: string) => [...(select?.options ?? [])].find((o) => o.value === id)?.textContent ?? id;
  const choose = (id: string) => { setChip(id); if (select) select.value = id; };
  const before = chipId();
  if (chipFromLink()) return; // a link's chip= is the reader's choice for this view
  let declined = false;
  try { declined = localStorage.getItem(declinedKey(article.dataset.key!)) === before; } catch { /* private mode */ }
  if (before === own || declined) return;
  choose(own);
  const back = document.createElement('button');
  back.type = 'button';
  back.className = 'chip-back';
  back.textContent = `Switch back to the ${nameOf(before)}`;
  back.addEventListener('click', () => {
    choose(before);
    try { localStorage.setItem(declinedKey(article.dataset.key!), before); } catch { /* private mode */ }
    status.textContent = `Back on the ${nameOf(before)}. This chapter will not switch the chip again; the selector at the top still does.`;
    back.remove();
  });
  const status = document.createElement('span');
  status.className = 'chip-switched';
  status.setAttribute('role', 'status');
  status.textContent = `The chip is now the ${nameOf(own)} (you had the ${nameOf(before)}). `;
  note.append(' ', status, back);
}

// ---------------------------------------------------------------- steps
function initStepper(article: HTMLElement) {
  const key = article.dataset.key!;
  const sections = [...article.querySelectorAll<HTMLElement>('section.step')];
  const n = sections.length;
  const nav = article.querySelector<HTMLElement>('.stepper')!;
  const prev = nav.querySelector<HTMLButtonElement>('.prev')!;
  const next = nav.querySelector<HTMLButtonElement>('.next')!;
  const status = nav.querySelector<HTMLElement>('.step-status')!;
  const all = nav.querySelector<HTMLInputElement>('.show-all input')!;
  const bar = nav.querySelector<HTMLElement>('.step-progress > div')!;
  const links = [...article.querySelectorAll<HTMLAnchorElement>('[data-step-link]')];
  const saved: Progress = progress(key) ?? { step: 1, visited: [], total: n, done: false };
  saved.total = n;
  let current = 1;
  document.documentElement.classList.add('js-steps');

  const fromHash = (): number | 'all' | null => {
    const h = location.hash;
    if (h === '#all') return 'all';
    const m = /^#step-(\d+)$/.exec(h);
    if (m) { const k = Number(m[1]); return k >= 1 && k <= n ? k : null; }
    return null;
  };
  const render = () => {
    const showAll = all.checked;
    article.classList.toggle('show-all', showAll);
    sections.forEach((s, i) => { s.hidden = !showAll && i + 1 !== current; });
    prev.disabled = showAll || current <= 1;
    next.disabled = showAll || current >= n;
    const title = sections[current - 1].getAttribute('aria-label') || '';
    status.textContent = showAll ? `All ${n} steps` : `Step ${current} of ${n}`;
    status.title = title;
    bar.style.width = `${(100 * (showAll ? n : current)) / n}%`;
    links.forEach((a) => {
      const k = Number(a.dataset.stepLink);
      a.classList.toggle('visited', saved.visited.includes(k));
      if (!showAll && k === current) a.setAttribute('aria-current', 'step'); else a.removeAttribute('aria-current');
    });
    article.classList.toggle('done', saved.done);
    document.dispatchEvent(new CustomEvent('sl-step-shown'));
  };
  const record = () => {
    if (!saved.visited.includes(current)) saved.visited.push(current);
    saved.step = current;
    if (saved.visited.length >= n) saved.done = true;
    saveProgress(key, saved);
  };
  const go = (k: number, how: 'push' | 'replace' | 'none' = 'push', focus = false) => {
    current = Math.min(Math.max(1, k), n);
    all.checked = false;
    if (how !== 'none') history[how === 'push' ? 'pushState' : 'replaceState'](null, '', `#step-${current}`);
    record();
    render();
    if (focus) {
      const heading = headingOf(current);
      heading.tabIndex = -1;
      heading.focus({ preventScroll: true });
      reveal();
    }
  };
  const headingOf = (k: number) => sections[k - 1].querySelector<HTMLElement>('h2') ?? sections[k - 1];
  // Step 1 opens on the chapter's title and goals; any other step's heading sits just below
  // the sticky bar (never under it, never below the fold).
  const reveal = () => {
    if (all.checked) return;
    if (current === 1) { window.scrollTo({ top: 0 }); return; }
    const top = headingOf(current).getBoundingClientRect().top;
    const below = nav.getBoundingClientRect().height + 8;
    if (top < below || top > window.innerHeight * 0.6) window.scrollTo({ top: Math.max(0, window.scrollY + top - below) });
  };
  const fromUrl = (how: 'replace' | 'none') => {
    const h = fromHash();
    if (h === 'all') { all.checked = true; render(); return; }
    go(h ?? saved.step ?? 1, h ? 'none' : how);
  };
  prev.addEventListener('click', () => go(current - 1, 'push', true));
  next.addEventListener('click', () => go(current + 1, 'push', true));
  all.addEventListener('change', () => {
    history.pushState(null, '', all.checked ? '#all' : `#step-${current}`);
    render();
  });
  links.forEach((a) => a.addEventListener('click', (e) => { e.preventDefault(); go(Number(a.dataset.stepLink), 'push', true); }));
  window.addEventListener('popstate', () => fromUrl('none'));
  window.addEventListener('hashchange', () => { fromUrl('none'); reveal(); });
  document.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || all.checked) return;
    const t = e.target as HTMLElement | null;
    if (t && (t.closest('input, select, textarea, [contenteditable=""], [contenteditable="true"], dialog[open]'))) return;
    if (e.key === 'ArrowRight' && current < n) { e.preventDefault(); go(current + 1, 'push', true); }
    else if (e.key === 'ArrowLeft' && current > 1) { e.preventDefault(); go(current - 1, 'push', true); }
  });
  // the browser's own jump to #step-N would put the chapter's title out of sight
  if ('scrollRestoration' in history) history.scrollRestoration = 'manual';
  fromUrl('replace');
  reveal();
  window.addEventListener('load', () => { reveal(); tabFromTop(); }, { once: true });
}

// Chromium starts keyboard navigation where the page's #step-N points (or wherever the
// hidden steps left it): the first Tab then skips the "Skip to content" link, the header
// and Prev/Next. Unless the reader has focused something already, start again at the top.
function tabFromTop() {
  if (document.activeElement && document.activeElement !== document.body) return;
  const body = document.body;
  body.tabIndex = -1;
  body.focus({ preventScroll: true });
  body.removeAttribute('tabindex');
}

// ---------------------------------------------------------------- live numbers
function paramsOf(el: HTMLElement): Record<string, unknown> {
  const p = JSON.parse(el.dataset.params || '{}');
  if (el.dataset.chip !== 'fixed' && !('chip' in p)) p.chip = chipParam();
  return p;
}
function valueText(engine: Engine, r: Result, el: HTMLElement): string {
  const out = el.dataset.out!;
  const v = getPath(r.outputs, out);
  if (el.dataset.kind === 'verdict') return verdictText(v, el.dataset.words) ?? 'n/a';
  if (isNumberList(v)) return numberListText(v);
  const unit = el.dataset.unit ?? engine.unitOf(r, out);
  if (el.dataset.digits && typeof v === 'number') return digitsText(v, unit, el.dataset.digits, (x, u) => engine.format(x, u));
  return engine.format(v, unit);
}
/** JSON with every object's keys in order: the same parameters written two ways give one text. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}
/** Live numbers evaluated once per distinct calculator and parameters (a chapter shows many
 *  outputs of one evaluation: chapter 12's 97 live numbers are 52 evaluations). */
function liveResults(engine: Engine, els: HTMLElement[]): Map<HTMLElement, Outcome> {
  const byKey = new Map<string, Outcome>();
  const out = new Map<HTMLElement, Outcome>();
  for (const el of els) {
    const params = paramsOf(el);
    const key = `${el.dataset.calc} ${canonical(params)}`;
    let r = byKey.get(key);
    if (!r) { r = engine.evaluate(el.dataset.calc!, params, { steps: false }); byKey.set(key, r); }
    out.set(el, r);
  }
  return out;
}
/** A `:compare` number: its own output against the second one it names (data-vs-*). */
function compareLive(engine: Engine, r: Result, el: HTMLElement): string {
  const vsParams = JSON.parse(el.dataset.vsParams || '{}');
  if (el.dataset.chip !== 'fixed' && !('chip' in vsParams)) vsParams.chip = chipParam();
  const other = engine.evaluate(el.dataset.vsCalc!, vsParams, { steps: false });
  if (isError(other)) return 'n/a';
  return compareText(getPath(r.outputs, el.dataset.out!), getPath(other.outputs, el.dataset.vsOut!), el.dataset.form, el.dataset.words, el.dataset.unit ?? engine.unitOf(r, el.dataset.out!)) ?? 'n/a';
}
/** A chapter's chip_needs: on a chip without one of those figures the note at the top says so,
 *  and returns what each number shows instead of "n/a"; undefined where the chip has them all. */
function chapterNeeds(article: HTMLElement, engine: Engine, chip: ReturnType<typeof chipParam>, chipName: string): string | undefined {
  const note = article.querySelector<HTMLElement>('.chapter-needs[data-needs]');
  if (!note) return undefined;
  const labels = JSON.parse(note.dataset.needs!) as Record<string, string>;
  const entry = (typeof chip === 'object' && chip ? chip : engine.chips.find((c) => c.id === chip)) as Record<string, unknown> | undefined;
  const missing = Object.keys(labels).filter((f) => {
    const v = f.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), entry);
    return !(typeof v === 'number' && Number.isFinite(v) && v > 0);
  }).map((f) => labels[f]);
  note.hidden = missing.length === 0;
  note.textContent = missing.length ? chipNeedsText(chipName || 'this chip', missing) : '';
  return missing.length ? chipNeedsShort(missing) : undefined;
}
/** `:::when` blocks: shown for the chips where their condition holds (src/when.js). */
function showWhenBlocks(article: HTMLElement, engine: Engine, chip: ReturnType<typeof chipParam>) {
  const kind = typeof chip === 'object' && chip ? String((chip as Record<string, unknown>).kind ?? '') : engine.chipIndex.find((c) => c.id === chip)?.kind ?? '';
  for (const el of article.querySelectorAll<HTMLElement>('.when[data-when]')) {
    const w = JSON.parse(el.dataset.when!) as WhenCondition;
    let value: { value?: unknown; error?: unknown } | undefined;
    if (w.calc) {
      const params = { ...(w.params ?? {}) };
      if (w.chip !== 'fixed' && !('chip' in params)) params.chip = chip;
      const r = engine.evaluate(w.calc, params, { steps: false });
      value = isError(r) ? { error: r.error } : { value: getPath(r.outputs, w.out!) };
    }
    el.hidden = !whenHolds(w, { kind, value });
  }
}
/** One alert under the chapter's stepper, where the engine could not be loaded. */
function showLoadProblem(article: HTMLElement, text: string) {
  let box = article.querySelector<HTMLElement>('.engine-problem');
  if (!box) {
    box = document.createElement('p');
    box.className = 'lab-notice engine-problem';
    box.setAttribute('role', 'alert');
    article.querySelector('.stepper')?.after(box);
  }
  box.textContent = text;
}
let generation = 0;
async function refreshLive(article: HTMLElement) {
  const mine = ++generation;
  const liveEls = [...article.querySelectorAll<HTMLElement>('.live')];
  let engine: Engine;
  try {
    engine = await getEngine([...new Set(liveEls.map((el) => el.dataset.calc!))]);
  } catch (e) {
    const written = article.dataset.chip ?? DEFAULT_CHIP;
    const name = document.querySelector<HTMLSelectElement>('#chip-select')?.querySelector<HTMLOptionElement>(`option[value="${CSS.escape(written)}"]`)?.textContent ?? written;
    showLoadProblem(article, `${engineLoadProblem(e)} The numbers in the text are for the ${name}, the chip this page was written for.`);
    return;
  }
  if (mine !== generation) return;
  const chip = chipParam();
  const chipName = typeof chip === 'object' && chip ? String(chip.name ?? '') : engine.chipName(String(chip));
  document.querySelectorAll<HTMLElement>('.chipname').forEach((el) => { el.textContent = chipName || 'this chip'; });
  const live = liveResults(engine, liveEls);
  const lacking = chapterNeeds(article, engine, chip, chipName);
  for (const [el, r] of live) {
    const none = el.dataset.none ?? lacking;
    if (isError(r)) {
      el.textContent = none ?? 'n/a'; el.title = r.error.message; el.classList.toggle('live-na', none === undefined); continue;
    }
    el.classList.remove('live-na'); el.removeAttribute('title');
    const shown = el.dataset.kind === 'compare' ? compareLive(engine, r, el) : valueText(engine, r, el);
    // none="…": the words the page gives where this chip has no such figure (never "—" or "n/a")
    el.textContent = none !== undefined && (shown === 'n/a' || shown === '—' || shown === '') ? none : shown;
  }
  showWhenBlocks(article, engine, chip);
  // for the tests and the curious: how many evaluations the last refresh of the live numbers made
  article.dataset.liveEvaluations = String(new Set(live.values()).size);
  // questions: the chip changed, so every answer and derivation is stale; open ones are typeset again now
  for (const f of article.querySelectorAll<HTMLFormElement>('form.question')) {
    const fb = f.querySelector<HTMLElement>('.q-feedback')!;
    fb.textContent = ''; fb.className = 'q-feedback';
    delete f.dataset.stepsFor;
    if (f.querySelector<HTMLDetailsElement>('details.q-derivation')?.open) void showDerivation(f);
  }
}

/** A question's derivation, typeset when the reader opens it (the page carries only the answer for
 *  its own chip: KaTeX's markup for every question was most of a chapter's HTML). Typeset again when
 *  opened after a chip change; `data-steps-for` names the parameters it was typeset for. */
async function showDerivation(form: HTMLFormElement) {
  const params = paramsOf(form);
  const key = canonical(params);
  if (form.dataset.stepsFor === key) return;
  const box = form.querySelector<HTMLElement>('.q-steps')!;
  let engine: Engine;
  try { engine = await getEngine(); } catch (e) { box.textContent = engineLoadProblem(e); return; }
  const katex = await loadKatex();
  if (canonical(paramsOf(form)) !== key) return; // the chip changed meanwhile: that call typesets
  const r = engine.evaluate(form.dataset.calc!, params);
  form.dataset.stepsFor = key;
  if (isError(r)) { box.textContent = `This question cannot be computed for this chip: ${r.error.message}`; return; }
  const unit = form.dataset.unit || '';
  box.innerHTML = stepsHtml(katex, r.steps, (v, u) => engine.format(v, u)) +
    `<p class="q-answer">Answer: <strong>${engine.format(getPath(r.outputs, form.dataset.out!), unit)}</strong></p>`;
}

// ---------------------------------------------------------------- questions
function initQuestions(article: HTMLElement) {
  article.querySelectorAll<HTMLFormElement>('form.question').forEach((form) => {
    const input = form.querySelector<HTMLInputElement>('input[name=answer]')!;
    const fb = form.querySelector<HTMLElement>('.q-feedback')!;
    const derivation = form.querySelector<HTMLDetailsElement>('details.q-derivation');
    derivation?.addEventListener('toggle', () => { if (derivation.open) void showDerivation(form); });
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const say = (cls: string, msg: string) => { fb.className = `q-feedback ${cls}`; fb.textContent = msg; };
      const guess = parseNumber(input.value);
      if (guess === null) {
        input.setAttribute('aria-invalid', 'true');
        say('refused', input.value.trim() ? `“${input.value.trim()}” is not a number I can read. Try 240, 2.4e11 or 1.4 ms.` : 'Type a number first.');
        return;
      }
      input.removeAttribute('aria-invalid');
      let engine: Engine;
      try { engine = await getEngine(); } catch (err) { say('refused', engineLoadProblem(err)); return; }
      const r = engine.evaluate(form.dataset.calc!, paramsOf(form), { steps: false });
      if (isError(r)) { say('refused', `The engine cannot answer this for the chosen chip: ${r.error.message}`); return; }
      const value = getPath(r.outputs, form.dataset.out!);
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        say('refused', 'The engine has no number for this question on the chosen chip (the catalog lacks a figure it needs). Try another chip.');
        return;
      }
      const answer = value;
      const tol = Number(form.dataset.tol || '0.05');
      const rel = answer === 0 ? Math.abs(guess) : (guess - answer) / Math.abs(answer);
      const unit = form.dataset.unit || '';
      if (Math.abs(rel) <= tol) {
        say('right', `Right. ${engine.format(guess, unit)} is within ${percent(rel)} of the engine's ${engine.format(answer, unit)} (we accept ±${percent(tol)}).`);
        form.classList.add('answered');
      } else {
        const ratio = guess / answer;
        const far = ratio > 2 ? `about ${ratio.toPrecision(2)}× too high` : ratio > 0 && ratio < 0.5 ? `about ${(1 / ratio).toPrecision(2)}× too low` : ratio <= 0 ? 'on the wrong side of zero' : `${percent(rel)} too ${rel > 0 ? 'high' : 'low'}`;
        say('wrong', `Not yet: ${engine.format(guess, unit)} is ${far}. Try again, or open the derivation.`);
      }
    });
  });
}
