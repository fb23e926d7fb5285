/** Types of scripts/one-reader.mjs, for its test (see the .mjs for the rule it checks). */
export function findOtherReaders(text: string, file?: string): string[]
export function checkPackages(root?: string): string[]
export function countInvalidThrows(root?: string): Record<string, number>
