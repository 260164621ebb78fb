// The chip selectors' groups: one per chip kind, in the order and with the titles of the engine's
// chip schema (the `kind` field's choices and choice_titles), so that a kind is named in one place.
// Used by the page build (build/content.mjs) and the labs.

/** The groups the schema's chip fields define: [{ kind, title }], titles starting with a capital. */
export function chipGroups(chipFields) {
  const kind = chipFields.find((f) => f.name === 'kind');
  if (!kind?.choices) throw new Error('the engine schema has no chip field "kind" with choices');
  const titles = kind.choice_titles ?? kind.choices;
  return kind.choices.map((k, i) => ({ kind: k, title: titles[i].charAt(0).toUpperCase() + titles[i].slice(1) }));
}

/** The chips in groups, in the schema's order; a chip of a kind the schema does not list falls into a last group "Other chips". */
export function groupChips(chips, chipFields) {
  const groups = chipGroups(chipFields).map((g) => ({ ...g, chips: [] }));
  const other = { kind: 'other', title: 'Other chips', chips: [] };
  for (const c of chips) (groups.find((g) => g.kind === c.kind) ?? other).chips.push(c);
  return [...groups, other].filter((g) => g.chips.length > 0);
}
