import type { Rng } from './rng.js'

/** A node of a parsed regular expression. */
export type RegexNode =
  | { readonly kind: 'seq'; readonly items: readonly RegexNode[] }
  | { readonly kind: 'alt'; readonly options: readonly RegexNode[] }
  | { readonly kind: 'repeat'; readonly node: RegexNode; readonly min: number; readonly max: number }
  | { readonly kind: 'ranges'; readonly ranges: readonly (readonly [number, number])[] }
  | { readonly kind: 'filter'; readonly test: RegExp }
  | { readonly kind: 'anchor'; readonly which: '^' | '$' }

/** A regex feature the generator cannot produce strings for; `hint` says what to write instead. */
export class UnsupportedRegexError {
  constructor(
    readonly reason: string,
    readonly hint: string,
  ) {}
}

const DIGIT: [number, number][] = [[48, 57]]
const WORD: [number, number][] = [
  [48, 57],
  [65, 90],
  [95, 95],
  [97, 122],
]
const SPACE: [number, number][] = [
  [32, 32],
  [9, 10],
]
/** Characters tried for `.`, negated classes and `\p{...}`: printable ASCII plus a few non-ASCII letters. */
const POOL: string[] = (() => {
  const out: string[] = []
  for (let c = 32; c < 127; c++) out.push(String.fromCharCode(c))
  out.push('é', 'ß', 'Ω', 'ж', '中', 'あ', '٣', '€', '\t', '\n')
  return out
})()

class Parser {
  private i = 0
  constructor(private readonly src: string) {}

  parse(): RegexNode {
    const node = this.alternation()
    if (this.i < this.src.length)
      throw this.unsupported(`unbalanced ")" at offset ${this.i}`, 'balance the parentheses')
    return node
  }

  private unsupported(reason: string, hint: string): UnsupportedRegexError {
    return new UnsupportedRegexError(reason, hint)
  }

  private alternation(): RegexNode {
    const options = [this.sequence()]
    while (this.src[this.i] === '|') {
      this.i++
      options.push(this.sequence())
    }
    return options.length === 1 ? options[0]! : { kind: 'alt', options }
  }

  private sequence(): RegexNode {
    const items: RegexNode[] = []
    while (this.i < this.src.length && this.src[this.i] !== '|' && this.src[this.i] !== ')') {
      const start = this.i
      const atom = this.atom()
      items.push(this.quantified(atom, start))
    }
    return items.length === 1 ? items[0]! : { kind: 'seq', items }
  }

  private quantified(atom: RegexNode, start: number): RegexNode {
    const c = this.src[this.i]
    let min: number
    let max: number
    if (c === '?' || c === '*' || c === '+') {
      this.i++
      ;[min, max] =
        c === '?' ? [0, 1] : c === '*' ? [0, Number.POSITIVE_INFINITY] : [1, Number.POSITIVE_INFINITY]
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i))
      if (!m) return atom
      this.i += m[0].length
      min = Number(m[1])
      max = m[2] === undefined ? min : m[3] === '' ? Number.POSITIVE_INFINITY : Number(m[3])
    } else {
      return atom
    }
    if (this.src[this.i] === '?') this.i++ // lazy: same language
    if (atom.kind === 'anchor') {
      throw this.unsupported(`a quantifier on an anchor at offset ${start}`, 'remove the quantifier')
    }
    return this.quantified({ kind: 'repeat', node: atom, min, max }, start)
  }

  private atom(): RegexNode {
    const c = this.src[this.i]!
    const start = this.i
    if (c === '(') {
      this.i++
      if (this.src.startsWith('?=', this.i) || this.src.startsWith('?!', this.i)) {
        throw this.unsupported(
          `a lookahead at offset ${start}`,
          'express the constraint without (?=...) / (?!...)',
        )
      }
      if (this.src.startsWith('?<=', this.i) || this.src.startsWith('?<!', this.i)) {
        throw this.unsupported(
          `a lookbehind at offset ${start}`,
          'express the constraint without (?<=...) / (?<!...)',
        )
      }
      if (this.src.startsWith('?:', this.i)) this.i += 2
      else if (this.src.startsWith('?<', this.i)) {
        const close = this.src.indexOf('>', this.i)
        this.i = close + 1
      } else if (this.src[this.i] === '?') {
        throw this.unsupported(`the group syntax "(?" at offset ${start}`, 'use (...) or (?:...)')
      }
      const inner = this.alternation()
      if (this.src[this.i] !== ')')
        throw this.unsupported(`an unclosed group at offset ${start}`, 'close the group')
      this.i++
      return inner
    }
    if (c === '[') return this.charClass()
    if (c === '.') {
      this.i++
      return { kind: 'filter', test: /^.$/u }
    }
    if (c === '^' || c === '$') {
      this.i++
      return { kind: 'anchor', which: c }
    }
    if (c === '\\') return this.escape(false) as RegexNode
    if (c === '*' || c === '+' || c === '?' || c === '{') {
      throw this.unsupported(`a quantifier with nothing to repeat at offset ${start}`, 'escape it as \\' + c)
    }
    const cp = this.src.codePointAt(this.i)!
    this.i += cp > 0xffff ? 2 : 1
    return { kind: 'ranges', ranges: [[cp, cp]] }
  }

  /** Parses an escape; inside a class returns ranges or a filter node. */
  private escape(inClass: boolean): RegexNode {
    const start = this.i
    this.i++ // backslash
    const c = this.src[this.i]
    if (c === undefined) throw this.unsupported('a trailing backslash', 'escape it as \\\\')
    this.i++
    switch (c) {
      case 'd':
        return { kind: 'ranges', ranges: DIGIT }
      case 'w':
        return { kind: 'ranges', ranges: WORD }
      case 's':
        return { kind: 'ranges', ranges: SPACE }
      case 'D':
      case 'W':
      case 'S':
        return { kind: 'filter', test: new RegExp(`^\\${c}$`, 'u') }
      case 'b':
        if (inClass) return { kind: 'ranges', ranges: [[8, 8]] }
        throw this.unsupported(`a word boundary \\b at offset ${start}`, 'remove the \\b assertion')
      case 'B':
        throw this.unsupported(`a non-word-boundary \\B at offset ${start}`, 'remove the \\B assertion')
      case 't':
        return { kind: 'ranges', ranges: [[9, 9]] }
      case 'n':
        return { kind: 'ranges', ranges: [[10, 10]] }
      case 'v':
        return { kind: 'ranges', ranges: [[11, 11]] }
      case 'f':
        return { kind: 'ranges', ranges: [[12, 12]] }
      case 'r':
        return { kind: 'ranges', ranges: [[13, 13]] }
      case '0':
        return { kind: 'ranges', ranges: [[0, 0]] }
      case 'x': {
        const m = /^[0-9a-fA-F]{2}/.exec(this.src.slice(this.i))
        if (!m) throw this.unsupported(`a malformed \\x escape at offset ${start}`, 'write \\xHH')
        this.i += 2
        const cp = Number.parseInt(m[0], 16)
        return { kind: 'ranges', ranges: [[cp, cp]] }
      }
      case 'u': {
        const m = /^(?:\{([0-9a-fA-F]{1,6})\}|([0-9a-fA-F]{4}))/.exec(this.src.slice(this.i))
        if (!m)
          throw this.unsupported(`a malformed \\u escape at offset ${start}`, 'write \\uHHHH or \\u{H...}')
        this.i += m[0].length
        const cp = Number.parseInt(m[1] ?? m[2]!, 16)
        return { kind: 'ranges', ranges: [[cp, cp]] }
      }
      case 'p':
      case 'P': {
        const m = /^\{[^}]+\}/.exec(this.src.slice(this.i))
        if (!m) throw this.unsupported(`a malformed \\${c} escape at offset ${start}`, 'write \\p{Name}')
        this.i += m[0].length
        return { kind: 'filter', test: new RegExp(`^\\${c}${m[0]}$`, 'u') }
      }
      case 'k':
        throw this.unsupported(
          `a named backreference at offset ${start}`,
          'repeat the group instead of referring back',
        )
      case 'c':
        throw this.unsupported(`a control escape \\c at offset ${start}`, 'write \\xHH instead')
      default: {
        if (/[1-9]/.test(c)) {
          throw this.unsupported(
            `a backreference \\${c} at offset ${start}`,
            'repeat the group instead of referring back',
          )
        }
        const cp = c.codePointAt(0)!
        return { kind: 'ranges', ranges: [[cp, cp]] }
      }
    }
  }

  private classAtom(): RegexNode {
    if (this.src[this.i] === '\\') return this.escape(true)
    const cp = this.src.codePointAt(this.i)!
    this.i += cp > 0xffff ? 2 : 1
    return { kind: 'ranges', ranges: [[cp, cp]] }
  }

  private charClass(): RegexNode {
    const start = this.i
    this.i++
    const negated = this.src[this.i] === '^'
    if (negated) this.i++
    const ranges: [number, number][] = []
    let hasFilter = false
    while (this.i < this.src.length && this.src[this.i] !== ']') {
      const lo = this.classAtom()
      if (this.src[this.i] === '-' && this.src[this.i + 1] !== ']' && this.i + 1 < this.src.length) {
        this.i++
        const hi = this.classAtom()
        if (
          lo.kind === 'ranges' &&
          hi.kind === 'ranges' &&
          lo.ranges.length === 1 &&
          hi.ranges.length === 1
        ) {
          ranges.push([lo.ranges[0]![0], hi.ranges[0]![0]])
          continue
        }
        throw this.unsupported(
          `a class range with a class escape at offset ${start}`,
          'write explicit ranges',
        )
      }
      if (lo.kind === 'ranges') ranges.push(...lo.ranges.map((r) => [r[0], r[1]] as [number, number]))
      else hasFilter = true
    }
    if (this.src[this.i] !== ']')
      throw this.unsupported(`an unclosed class at offset ${start}`, 'close it with ]')
    this.i++
    if (negated || hasFilter) {
      // Let the engine decide membership of each pool character.
      return { kind: 'filter', test: new RegExp(`^${this.src.slice(start, this.i)}$`, 'u') }
    }
    return { kind: 'ranges', ranges }
  }
}

/**
 * Parses a JSON Schema `pattern` (ECMAScript, `u` flag as ajv uses it) into a generator tree.
 * @throws UnsupportedRegexError for lookarounds, backreferences, word boundaries and other assertions
 * @throws SyntaxError when the pattern is not a valid `u`-flag regular expression
 */
export function parseRegex(source: string): RegexNode {
  new RegExp(source, 'u')
  return new Parser(source).parse()
}

/** The fewest code points any string generated from `node` has. */
export function regexMinLength(node: RegexNode): number {
  switch (node.kind) {
    case 'seq':
      return node.items.reduce((n, item) => n + regexMinLength(item), 0)
    case 'alt':
      return Math.min(...node.options.map(regexMinLength))
    case 'repeat':
      return node.min * regexMinLength(node.node)
    case 'anchor':
      return 0
    default:
      return 1
  }
}

/** The most code points a full match of `node` can have (`Infinity` when unbounded). */
export function regexMaxLength(node: RegexNode): number {
  switch (node.kind) {
    case 'seq':
      return node.items.reduce((n, item) => n + regexMaxLength(item), 0)
    case 'alt':
      return Math.max(...node.options.map(regexMaxLength))
    case 'repeat': {
      const inner = regexMaxLength(node.node)
      return inner === 0 ? 0 : node.max * inner
    }
    case 'anchor':
      return 0
    default:
      return 1
  }
}

/** True when every path through the pattern starts with `^` (resp. ends with `$`). */
export function regexAnchored(node: RegexNode, which: '^' | '$'): boolean {
  switch (node.kind) {
    case 'anchor':
      return node.which === which
    case 'alt':
      return node.options.every((o) => regexAnchored(o, which))
    case 'seq': {
      const items = which === '^' ? node.items : [...node.items].reverse()
      for (const item of items) {
        if (regexAnchored(item, which)) return true
        if (item.kind !== 'anchor') return false
      }
      return false
    }
    default:
      return false
  }
}

function pickFromRanges(ranges: readonly (readonly [number, number])[], rng: Rng): string {
  const total = ranges.reduce((n, [lo, hi]) => n + Math.max(0, hi - lo + 1), 0)
  let k = rng.int(0, Math.max(0, total - 1))
  for (const [lo, hi] of ranges) {
    const size = hi - lo + 1
    if (k < size) return String.fromCodePoint(lo + k)
    k -= size
  }
  return String.fromCodePoint(ranges[0]![0])
}

const filterCache = new WeakMap<RegExp, string[]>()

/**
 * Generates a string the node matches in full. `extra` caps how far an unbounded quantifier goes beyond
 * its minimum (raise it to get longer strings). Returns `undefined` when a class matches no pool character
 * or the string would exceed `limit` characters.
 */
export function generateFromRegex(
  node: RegexNode,
  rng: Rng,
  extra: number,
  limit = Number.POSITIVE_INFINITY,
): string | undefined {
  return generateNode(node, rng, extra, { left: limit })
}

/** Generation with a shared character allowance: `undefined` once the string would exceed it. */
function generateNode(
  node: RegexNode,
  rng: Rng,
  extra: number,
  budget: { left: number },
): string | undefined {
  if (budget.left < 0) return undefined
  switch (node.kind) {
    case 'anchor':
      return ''
    case 'ranges':
      budget.left--
      return pickFromRanges(node.ranges, rng)
    case 'filter': {
      budget.left--
      let members = filterCache.get(node.test)
      if (!members) {
        members = POOL.filter((ch) => node.test.test(ch))
        filterCache.set(node.test, members)
      }
      return members.length === 0 ? undefined : rng.pick(members)
    }
    case 'alt':
      return generateNode(rng.pick(node.options), rng, extra, budget)
    case 'seq': {
      let out = ''
      for (const item of node.items) {
        const part = generateNode(item, rng, extra, budget)
        if (part === undefined) return undefined
        out += part
      }
      return out
    }
    case 'repeat': {
      const cap = Math.min(node.max, node.min + extra)
      const count = rng.int(node.min, Math.max(node.min, Math.min(cap, node.min + 10_000)))
      let out = ''
      for (let k = 0; k < count; k++) {
        const part = generateNode(node.node, rng, extra, budget)
        if (part === undefined || budget.left < 0) return undefined
        out += part
      }
      return out
    }
  }
}
