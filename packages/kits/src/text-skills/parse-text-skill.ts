import { describeValue, InvalidDefinitionError, refuseField } from '@agent-core/core'

/**
 * What a parser makes of a skill file: the catalog description and the workflow body.
 * @example
 * ```ts
 * import { type ParsedTextSkill, parseTextSkill } from '@agent-core/kits/text-skills'
 * const parsed: ParsedTextSkill = parseTextSkill('# Triage\nSort new issues.\n\n1. Label it.\n', 'triage.md')
 * parsed.description // 'Sort new issues.'
 * ```
 */
export interface ParsedTextSkill {
  /** One short paragraph for a catalog (a skill list shown to a model). Non-empty. */
  readonly description: string
  /** The workflow text itself. */
  readonly body: string
}

const lineBreak = /\r\n|\r|\n/

function unquote(value: string): string {
  const trimmed = value.trim()
  if (trimmed.length >= 2) {
    const first = trimmed[0]
    if ((first === '"' || first === "'") && trimmed.endsWith(first)) return trimmed.slice(1, -1).trim()
  }
  return trimmed
}

/** The `description` of a front matter block, `undefined` when it has none. */
function frontMatterDescription(lines: readonly string[]): string | undefined {
  for (let i = 0; i < lines.length; i++) {
    const match = /^description\s*:(.*)$/.exec(lines[i] as string)
    if (!match) continue
    const inline = (match[1] as string).trim()
    if (inline !== '' && !/^[|>][+-]?$/.test(inline)) return unquote(inline)
    // A block scalar or an empty value: the indented lines that follow, folded into one line.
    const folded: string[] = []
    for (let j = i + 1; j < lines.length && /^\s+\S/.test(lines[j] as string); j++)
      folded.push((lines[j] as string).trim())
    return folded.join(' ')
  }
  return undefined
}

/** The first paragraph that is not a heading: its lines joined with single spaces. */
function firstParagraph(lines: readonly string[]): string {
  const paragraph: string[] = []
  for (const line of lines) {
    const trimmed = line.trim()
    const heading = /^#{1,6}(\s|$)/.test(trimmed)
    if (trimmed === '' || heading) {
      if (paragraph.length > 0) break
      continue
    }
    paragraph.push(trimmed)
  }
  return paragraph.join(' ')
}

/**
 * The default skill file parser. A file may open with a front matter block (`---` ... `---`); its
 * `description:` (plain, quoted, or a folded block) becomes the catalog description and the text after the
 * block becomes the body. Any other front matter field (`name`, `tools`, ...) is ignored: ids and tool
 * references come only from the registration. Without a front matter description, the first paragraph that
 * is not a heading is the description and the whole text is the body. A leading byte order mark is dropped.
 *
 * @param text - the file's text as the read port returned it
 * @param path - the skill's entry path, used in errors
 * @throws InvalidDefinitionError when the file has no description or an unterminated front matter block
 * @throws InvalidInputError when `text` or `path` is not a string
 * @example
 * ```ts
 * import { parseTextSkill } from '@agent-core/kits/text-skills'
 *
 * parseTextSkill('# Triage\nSort new issues by area.\n\n1. Read the issue.\n', 'triage.md').description
 * // 'Sort new issues by area.'
 * ```
 */
export function parseTextSkill(text: string, path: string): ParsedTextSkill {
  if (typeof path !== 'string')
    refuseField(
      'input',
      'path',
      `must be the entry path (used in errors) as a string, but got ${describeValue(path)}`,
      path,
      { prefix: 'parseTextSkill: ' },
    )
  if (typeof text !== 'string')
    refuseField('input', 'text', `must be the file text as a string, but got ${describeValue(text)}`, text, {
      prefix: 'parseTextSkill: ',
      details: { path },
    })
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text
  let body = source
  let description: string | undefined
  const opening = /^---[ \t]*(?:\r\n|\r|\n)/.exec(source)
  if (opening) {
    const rest = source.slice(opening[0].length)
    const closing = /^(?:---|\.\.\.)[ \t]*(?:\r\n|\r|\n|$)/m.exec(rest)
    if (!closing) {
      throw new InvalidDefinitionError(
        `The text skill file "${path}" opens a front matter block with '---' but never closes it. Add a closing '---' line, or remove the opening one.`,
        { details: { path } },
      )
    }
    description = frontMatterDescription(rest.slice(0, closing.index).split(lineBreak))
    body = rest.slice(closing.index + closing[0].length)
  }
  if (description === undefined || description === '') description = firstParagraph(body.split(lineBreak))
  if (description === '') {
    throw new InvalidDefinitionError(
      `The text skill file "${path}" has no description. Start it with a short paragraph (or a front matter 'description:'), or pass a parse function to defineTextSkillLoader.`,
      { details: { path } },
    )
  }
  return { description, body }
}
