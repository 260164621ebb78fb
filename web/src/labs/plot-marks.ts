// The parts of Observable Plot the labs draw with: a named re-export, so that the lazily loaded
// chunk keeps Rollup's tree-shaking (a dynamic import of the whole package would ship all of it).
// A lab that needs another mark adds it here.
export { areaY, axisY, barX, dot, gridY, line, plot, ruleX, stackX, text } from '@observablehq/plot';
