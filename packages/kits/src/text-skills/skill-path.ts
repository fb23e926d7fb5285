/** The outcome of checking a skill's entry path: the normalized path, or why it was refused. */
export type SkillPathCheck =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly reason: string }

/**
 * Checks that `entry` names a file inside the skill root and normalizes it to `/`-separated segments
 * without `.` or empty segments. Refused: non-strings, empty paths, NUL bytes, absolute paths (`/x`, `\x`,
 * `C:x`), any `:` (drive letters, URL schemes, alternate data streams), `..` segments (with `/` or `\` as the
 * separator, and dot-and-space names Windows trims to `..`) and paths that end with a separator or name no file.
 */
export function checkSkillPath(entry: unknown): SkillPathCheck {
  if (typeof entry !== 'string') return { ok: false, reason: 'it is not a string' }
  if (entry.length === 0) return { ok: false, reason: 'it is empty' }
  if (entry.includes('\u0000')) return { ok: false, reason: 'it contains a NUL byte' }
  if (entry.startsWith('/') || entry.startsWith('\\')) return { ok: false, reason: 'it is absolute' }
  if (entry.includes(':')) return { ok: false, reason: "it contains ':' (a drive letter or URL scheme)" }
  if (entry.endsWith('/') || entry.endsWith('\\'))
    return { ok: false, reason: 'it ends with a separator (a folder)' }
  const segments: string[] = []
  for (const segment of entry.split(/[/\\]/)) {
    if (segment === '' || segment === '.') continue
    // '..', and names Windows would trim to '..' (such as '.. ' or '...'), could leave the root.
    if (/^[. ]+$/.test(segment))
      return { ok: false, reason: `it has a '${segment}' segment that could leave the skill root` }
    segments.push(segment)
  }
  if (segments.length === 0) return { ok: false, reason: 'it names no file' }
  return { ok: true, path: segments.join('/') }
}
