/** Types of scripts/module-state.mjs, for its test (see the .mjs for the rule it checks). */
export const CHECKED_KITS: readonly string[]
export function findModuleState(text: string, file?: string): string[]
export function checkKits(root?: string): string[]
