// Phrases the labs build around the engine's numbers: a parallel layout in words. (Unit words,
// plurals and articles belong to the engine's formatter.)

/** The degrees of a parallel layout as a reader says them: "16-way FSDP × 4-way tensor parallel ×
 *  32-way context parallel" (degrees of 1 left out; one chip says so). Technical: the book's
 *  dp × fsdp × tp × pp, then cp and ep where the layout splits sequences or experts. Every degree
 *  the layout sets is said, so that their product is its number of chips. Each degree is written
 *  by `count`, the engine's formatter of counts ("1,120-way", not "1120-way"). */
export function layoutWords(d: Record<string, unknown>, technical: boolean, count: (n: number) => string, one = 'chip'): string {
  const degrees = [['dp', 'data parallel'], ['fsdp', 'FSDP'], ['tp', 'tensor parallel'], ['pp', 'pipeline'],
    ['cp', 'context parallel'], ['ep', 'expert parallel']] as const;
  if (technical) {
    return degrees.filter(([k]) => ['dp', 'fsdp', 'tp', 'pp'].includes(k) || Number(d[k]) > 1)
      .map(([k]) => `${k} ${count(Number(d[k]))}`).join(' × ');
  }
  const parts = degrees.filter(([k]) => Number(d[k]) > 1).map(([k, w]) => `${count(Number(d[k]))}-way ${w}`);
  return parts.length ? parts.join(' × ') : `one ${one}, no parallelism`; // a reader's own device: 'one device'
}

/** A count and its noun, singular for one: "1 chip", "16 chips" (the number as the engine writes it). */
export function counted(n: number, singular: string, format: (v: number) => string, plural = `${singular}s`): string {
  return `${format(n)} ${n === 1 ? singular : plural}`;
}

/** A collective by the book's name (the engine's op: all_gather → AllGather). */
export function opWords(op: unknown): string {
  return String(op).split('_').map((w) => w[0].toUpperCase() + w.slice(1)).join('');
}

/** A GPU fabric level (the engine's nvlink, leaf, spine) in words. */
export function levelWords(level: unknown): string {
  return ({ nvlink: 'NVLink', leaf: 'leaf switches', spine: 'spine switches' } as Record<string, string>)[String(level)] ?? String(level);
}

/** "a" or "an" before a number as it is read aloud: an 8-chip slice, an 11-layer model, an
 *  18,000-token prompt, a 16-chip slice, a 1.5B-parameter model. */
export function article(numberText: string): 'a' | 'an' {
  const lead = numberText.trim().replace(/^[^\d]*/, '').split(/[,\s]/)[0].split('.')[0];
  return /^8/.test(lead) || lead === '11' || lead === '18' ? 'an' : 'a';
}

/** An engine message as a Plain reader reads it. The engine writes its messages in words and puts
 *  an identifier (a parameter, a chip field, chip_overrides.hbm_bytes) only in parentheses, for
 *  the Technical reader and the API; Plain leaves those parentheses out. */
export function forPeople(message: string): string {
  return message.replace(/\s*\(([^()]*)\)/g, (group, inner: string) => (/\b[a-z][a-z0-9]*(_[a-z0-9]+)+\b|\b[a-z_]+\.[a-z0-9_.]+\b/.test(inner) ? '' : group));
}

/** The bandwidth paths (the engine's transfer/roofline choices) a kind of chip is not built with:
 *  the reader's one device has no link to another chip, a TPU no NVLink or InfiniBand, a
 *  datacenter GPU no ICI and no DCN between pods (InfiniBand joins its nodes), a Mac's unified
 *  memory no PCIe between host and chip; VMEM is a TPU's on-chip memory, on no other kind. */
const NOT_ON: Record<string, string[]> = {
  tpu: ['nvlink', 'ib'], 'datacenter-gpu': ['ici', 'dcn', 'vmem'], 'workstation-gpu': ['vmem'], 'consumer-gpu': ['vmem'],
  'unified-memory': ['pcie', 'vmem'], cpu: ['vmem'],
};
export function pathAbsent(kind: string, ownDevice: boolean, path: string): boolean {
  return (ownDevice && ['ici', 'nvlink', 'dcn', 'ib'].includes(path)) || (NOT_ON[kind] ?? []).includes(path);
}

/** A figure in a field's unit as the engine's formatter writes it, for fieldProblem: a count of
 *  parameters in words ("10¹⁶ parameters"), a share or a count bare. */
export function fieldAmount(format: (v: number, unit: string) => string, unit: string | undefined): (x: number) => string {
  return (x) => (unit === 'params' ? `${format(x, 'count')} parameters` : format(x, !unit || unit === 'ratio' ? 'count' : unit));
}

/** What is wrong with a number typed in a field, in words, from the schema's range: the one place
 *  the labs' fields and the custom chip form write their input errors ("too small — at least 1
 *  sequence", "too large — at most 10 million chips", "enter a number, such as 512, 100M or
 *  2.5B"), with no "got" and no e-notation. `value`: the number the text reads as, or the text
 *  where it reads as none; `amount`: a figure in the field's unit, as the engine's formatter
 *  writes it. Null where the number is in range (the engine's own message then stands). */
export function fieldProblem(s: { type: string; min?: number | null; max?: number | null; min_exclusive?: boolean }, value: unknown,
  amount: (x: number) => string): string | null {
  if (!['number', 'integer'].includes(s.type)) return null;
  if (typeof value === 'string') {
    const text = value.trim();
    if (!text) return 'enter a number';
    const huge = /^[-+]?(\d|\.\d)/.test(text) && !Number.isFinite(Number(text.replace(/[,_\s]/g, '')));
    if (huge && typeof s.max === 'number') return `too large — at most ${amount(s.max)}`;
    return 'enter a number, such as 512, 100M or 2.5B';
  }
  if (typeof value !== 'number') return null;
  if (typeof s.max === 'number' && value > s.max) return `too large — at most ${amount(s.max)}`;
  if (typeof s.min === 'number' && (s.min_exclusive ? value <= s.min : value < s.min)) return s.min_exclusive ? `too small — more than ${amount(s.min)}` : `too small — at least ${amount(s.min)}`;
  if (s.type === 'integer' && !Number.isInteger(value)) return `enter a whole number, such as ${amount(Math.max(s.min ?? 1, Math.round(value)))}`;
  return null;
}

/** Words written for chips, said of datacenter GPUs ("8 chips" → "8 GPUs", "chip-hours" →
 *  "GPU-hours"): a lab whose chips field says GPUs says it everywhere (one word per lab per kind);
 *  the page's chip menu and a custom chip keep their names. */
export const gpuWords = (text: string): string => text.replace(/(?<!custom )\b[Cc]hip(s?)\b(?! menu)/g, (_m, pl: string) => `GPU${pl}`);
