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
 *  datacenter GPU no ICI, a Mac's unified memory no PCIe between host and chip. */
const NOT_ON: Record<string, string[]> = { tpu: ['nvlink', 'ib'], 'datacenter-gpu': ['ici'], 'unified-memory': ['pcie'] };
export function pathAbsent(kind: string, ownDevice: boolean, path: string): boolean {
  return (ownDevice && ['ici', 'nvlink', 'dcn', 'ib'].includes(path)) || (NOT_ON[kind] ?? []).includes(path);
}
