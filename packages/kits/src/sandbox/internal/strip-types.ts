/**
 * Type stripping with sucrase (pure JavaScript, no WebAssembly, loads in Node 20): its TypeScript transform
 * removes types and keeps every line where it was, so the line of an error in the stripped code is the line
 * the model wrote. The code is wrapped in an async function first (on its first line), so `await` and
 * `return` work at the top of the script. sucrase is loaded on the first TypeScript script, not when the kit
 * is imported (it is about 60 modules).
 */
// by the public subpath (the same class): imported by relative path, sandbox-errors.ts would be a module
// this runtime shares with the kit's entry, and the bundler would make it a chunk of its own (internal/load-runtime.ts)
import { SandboxUnavailableError } from '@agent-core/kits/sandbox'

type Sucrase = typeof import('sucrase')

let sucrase: Promise<Sucrase> | undefined
export function loadSucrase(): Promise<Sucrase> {
  if (sucrase === undefined) {
    const loading = import('sucrase').catch((error: unknown) => {
      throw new SandboxUnavailableError(
        'TypeScript scripts need sucrase (a dependency of @agent-core/kits), which could not be loaded. Reinstall @agent-core/kits, or run JavaScript scripts (language: "javascript").',
        { cause: error },
      )
    })
    sucrase = loading
    // a failed load is tried again by the next script
    loading.catch(() => {
      if (sucrase === loading) sucrase = undefined
    })
  }
  return sucrase
}

/** The wrapper's text before the first line of the script. */
export const WRAPPER_START = '(async () => {"use strict";'
const WRAPPER_END = '\n})'

/** The script ready for QuickJS, or the position of its syntax error. */
export type Stripped =
  | { readonly ok: true; readonly code: string }
  | { readonly ok: false; readonly message: string; readonly line?: number; readonly column?: number }

export async function prepareScript(code: string, language: 'typescript' | 'javascript'): Promise<Stripped> {
  const wrapped = `${WRAPPER_START}${code}${WRAPPER_END}`
  if (language === 'javascript') return { ok: true, code: wrapped }
  const { transform } = await loadSucrase()
  try {
    const out = transform(wrapped, {
      transforms: ['typescript'],
      disableESTransforms: true,
      keepUnusedImports: true,
    })
    return { ok: true, code: out.code }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const lines = code.split('\n').length
    const loc = (error as { loc?: { line?: unknown; column?: unknown } }).loc
    const line = typeof loc?.line === 'number' ? loc.line : undefined
    const column = typeof loc?.column === 'number' ? loc.column : undefined
    return {
      ok: false,
      message: message.replace(/\s*\(\d+:\d+\)$/, ''),
      ...(line === undefined ? {} : { line: Math.min(line, lines) }),
      ...(line === undefined || column === undefined || line > lines
        ? {}
        : { column: line === 1 ? Math.max(1, column - WRAPPER_START.length) : column }),
    }
  }
}
