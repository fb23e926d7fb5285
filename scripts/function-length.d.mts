/** Types of scripts/function-length.mjs, for its test (see the .mjs for the rule it checks). */
export const CHECKED_FOLDERS: readonly string[]
export const MAX_FUNCTION_LINES: number
export interface FunctionSpan {
  file: string
  line: number
  name: string
  lines: number
}
export function functionSpans(text: string, file?: string): FunctionSpan[]
export function findLongFunctions(text: string, file?: string, max?: number): string[]
export function checkedFiles(root?: string): string[]
export function checkFunctionLengths(root?: string, max?: number): string[]
