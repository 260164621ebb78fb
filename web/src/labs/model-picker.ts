// The catalog-model picker, shared by every lab with a `model` control (model, memory-budget,
// training-pod, decode, serving). The engine's schema types the parameter `model` (a catalog id
// or a model object); a lab offers the engine's catalog (`engine.modelIndex`) as a <select> whose
// options read as the models' names. The value sent to the engine, and kept in the URL as
// `model=<id>`, is the catalog id; the default is the schema's. The framework builds the control
// for any parameter of type `model` through modelPicker(); a lab only lists MODEL_PICKER.
import type { Engine, ParamSchema } from '../engine';
import type { ControlSpec } from './lab-state';

/** the picker's control spec: list it in a lab's controlSpecs */
export const MODEL_PICKER: ControlSpec = { path: 'model', label: 'catalog model' };

/** a `model` parameter's schema as a choice over the engine's catalog, with each model's name */
export function modelPicker(schema: ParamSchema, engine: Engine): { schema: ParamSchema; choiceLabels: Record<string, string> } {
  return {
    schema: { ...schema, type: 'choice', choices: engine.modelIndex.map((m) => m.id) },
    choiceLabels: Object.fromEntries(engine.modelIndex.map((m) => [m.id, m.name])),
  };
}
