// The memory meter of the local-device labs (Can I run it?, Can I fine-tune it?): one bar of the
// parts that use the device's memory, the free rest, a dashed line at the usable limit, and a
// legend with a swatch per part. The parts and their bytes are the engine's outputs; this file
// only lays them out. Colours: `.meter-<key>` in styles.css.
import { html, nothing, type TemplateResult } from 'lit';
import type { Result } from '../engine';

export interface MeterPart { key: string; label: string; bytes: number }

/** A finite number, or 0 for an output that is absent or null. */
export const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** What a meter is drawn against: the engine's usable, needed and margin bytes and its fit. */
export interface MeterFigures { usable_bytes?: unknown; needed_bytes?: unknown; margin_bytes?: unknown; fits?: unknown }

/** The meter for a result with usable_bytes, needed_bytes, margin_bytes and fits; `bytes` formats
 *  a byte count the engine's way. Parts of 0 bytes are left out. */
export function memoryMeter(r: Result, parts: MeterPart[], bytes: (v: number) => string): TemplateResult {
  return meterOf(r.outputs, parts, bytes);
}

/** The same meter for one device of several (`o`: one entry of the engine's devices list), its
 *  spoken label starting with `what` ("GeForce RTX 3090"). */
export function meterOf(o: MeterFigures, parts: MeterPart[], bytes: (v: number) => string, what = 'Memory'): TemplateResult {
  const usable = num(o.usable_bytes), needed = num(o.needed_bytes), margin = num(o.margin_bytes);
  const shown = parts.filter((p) => p.bytes > 0);
  const scale = Math.max(usable, needed) || 1;
  const free = Math.max(0, margin);
  const pct = (b: number) => `${(100 * b / scale).toFixed(2)}%`;
  const over = `${bytes(-margin)} more than the ${bytes(usable)} usable`;
  const text = `${shown.map((p) => `${p.label} ${bytes(p.bytes)}`).join(', ')}; ${o.fits ? `free ${bytes(free)}` : over}`;
  const key = (cls: string, label: string) => html`<span class="meter-key"><span class=${`meter-swatch ${cls}`} aria-hidden="true"></span>${label}</span> `;
  return html`<div class="cir-meter" role="img" aria-label=${`${what}: ${text}`}>
    <div class="cir-bar">
      ${shown.map((p) => html`<span class=${`cir-part meter-${p.key}`} data-part=${p.key} style=${`width:${pct(p.bytes)}`} title=${`${p.label}: ${bytes(p.bytes)}`}></span>`)}
      ${free > 0 ? html`<span class="cir-part meter-free" style=${`width:${pct(free)}`} title=${`free: ${bytes(free)}`}></span>` : nothing}
      <span class="cir-limit" style=${`left:${pct(usable)}`} aria-hidden="true"></span>
    </div>
    <p class="cir-legend">${shown.map((p) => key(`meter-${p.key}`, `${p.label} ${bytes(p.bytes)}`))}${o.fits ? key('meter-free', `free ${bytes(free)}`) : html`<strong class="meter-short">${over}</strong>`}</p>
  </div>`;
}
