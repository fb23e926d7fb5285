import { createId } from '@agent-core/core'

/**
 * A fresh `<prefix>_<32 hex>` id: core's one generator, under the name the loop's modules use. Its own
 * module (not the run engine's), so that the modules loaded at import need not load the engine.
 */
export const newId = createId
