/**
 * The third-party packages a build compiles into our dist (`agentCore.bundledIntoDist`, see
 * scripts/tsup-config.mjs) behave there as they do from their own package. The stemmer is CommonJS and the
 * build turns it into ESM, so the search kit's analysis module is bundled here the way the build bundles it
 * and its Porter2 stems are compared with the package's over every word of the repository's docs and a list
 * of suffix cases.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { expect, it } from 'vitest'
import { asciiOnly, bundledPackageNames, bundledPackages, installedPackageRoot } from './tsup-config.mjs'

const root = join(import.meta.dirname, '..')
const kits = join(root, 'packages/kits')

/** Every lower-case ASCII word of the Markdown files under docs/. */
/** One file bundled for Node as the kits' build bundles it (the bundled-packages plugin), as ESM text. */
async function bundleWithPlugin(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    logLevel: 'silent',
    plugins: [bundledPackages(kits, bundledPackageNames(kits))],
  })
  return result.outputFiles[0]?.text ?? ''
}

function docsVocabulary(): string[] {
  const words = new Set<string>()
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.md'))
        for (const word of readFileSync(path, 'utf8')
          .toLowerCase()
          .match(/[a-z][a-z']*/g) ?? [])
          words.add(word)
    }
  }
  walk(join(root, 'docs'))
  return [...words]
}

const SUFFIX_CASES = [
  'caresses',
  'ponies',
  'ties',
  'cries',
  'gas',
  'this',
  'gaps',
  'kiwis',
  'feed',
  'agreed',
  'disowned',
  'plastered',
  'bled',
  'motoring',
  'sing',
  'conflated',
  'troubled',
  'sized',
  'hopping',
  'tanned',
  'falling',
  'hissing',
  'fizzed',
  'failing',
  'filing',
  'happy',
  'sky',
  'relational',
  'conditional',
  'rational',
  'valenci',
  'hesitanci',
  'digitizer',
  'conformabli',
  'radicalli',
  'differentli',
  'vileli',
  'analogousli',
  'vietnamization',
  'predication',
  'operator',
  'feudalism',
  'decisiveness',
  'hopefulness',
  'callousness',
  'formaliti',
  'sensitiviti',
  'sensibiliti',
  'triplicate',
  'formative',
  'formalize',
  'electriciti',
  'electrical',
  'hopeful',
  'goodness',
  'revival',
  'allowance',
  'inference',
  'airliner',
  'gyroscopic',
  'adjustable',
  'defensible',
  'irritant',
  'replacement',
  'adjustment',
  'dependent',
  'adoption',
  'homologou',
  'communism',
  'activate',
  'angulariti',
  'homologous',
  'effective',
  'bowdlerize',
  'probate',
  'rate',
  'cease',
  'controll',
  'roll',
  'generously',
  'communities',
  'arsenal',
  'skis',
  'skies',
  'dying',
  'lying',
  'tying',
  'news',
  'innings',
  'outings',
  'cannings',
  'howe',
  'atlas',
  'cosmos',
  'bias',
  'andes',
  "o'neil's",
]

it('every bundled package is a devDependency the build can find', () => {
  const manifest = JSON.parse(readFileSync(join(kits, 'package.json'), 'utf8'))
  const names = bundledPackageNames(kits)
  expect(names).toContain('wink-porter2-stemmer')
  for (const name of names) {
    expect(manifest.devDependencies[name]).toBeDefined()
    expect(manifest.dependencies[name]).toBeUndefined()
  }
})

it('the bundled Porter2 stemmer stems every word as the package does', async () => {
  const code = await bundleWithPlugin(join(kits, 'src/search/internal/analysis.ts'))
  expect(code).not.toContain('__commonJS')
  expect(code).toContain('wink-porter2-stemmer 2.0.1, bundled into this file')
  // ASCII-only, so that V8 keeps the built module's source as a one-byte string (asciiOnly)
  expect(code.match(/[^\0-\x7f]/g) ?? []).toEqual([])
  const file = join(tmpdir(), `agent-core-analysis-${process.pid}.mjs`)
  writeFileSync(file, code)
  try {
    const analysis = (await import(pathToFileURL(file).href)) as { stemEnglish(word: string): string }
    const stem = createRequire(join(kits, 'package.json'))('wink-porter2-stemmer') as (word: string) => string
    const words = [...new Set([...docsVocabulary(), ...SUFFIX_CASES])].filter(
      (w) => w.length >= 3 && /^[a-z][a-z']*$/.test(w),
    )
    expect(words.length).toBeGreaterThan(2000)
    const differ = words.filter((w) => analysis.stemEnglish(w) !== stem(w))
    expect(differ).toEqual([])
  } finally {
    rmSync(file, { force: true })
  }
})

it('the bundled stemmer, written ASCII-only, treats the typographic apostrophe as the package does', async () => {
  const main = join(installedPackageRoot(kits, 'wink-porter2-stemmer'), 'src/wink-porter2-stemmer.js')
  expect(readFileSync(main, 'utf8')).toContain('\u2019')
  const code = await bundleWithPlugin(main)
  expect(code.match(/[^\0-\x7f]/g) ?? []).toEqual([])
  const file = join(tmpdir(), `agent-core-stemmer-${process.pid}.mjs`)
  writeFileSync(file, code)
  try {
    const bundled = ((await import(pathToFileURL(file).href)) as { default: (word: string) => string })
      .default
    const stem = createRequire(join(kits, 'package.json'))('wink-porter2-stemmer') as (word: string) => string
    const words = [
      'o\u2019neil\u2019s',
      'boys\u2019',
      'cat\u2019',
      'user\u2019s',
      "user's",
      'yesterday\u2019s',
      'flies\u2019',
    ]
    expect(words.map(bundled)).toEqual(words.map(stem))
    expect(bundled('user\u2019s')).toBe('user')
  } finally {
    rmSync(file, { force: true })
  }
})

it('asciiOnly writes non-ASCII characters as escapes that mean the same, and refuses what it cannot escape', () => {
  // the source text of a module, with its non-ASCII characters as they are (the escapes are this file's)
  const source = [
    "m.a = /\\\u2019s$|\\'s$/;",
    'm.b = /[\u2019\u00e9]+/u;',
    "m.c = '\\\\\u2019 caf\u00e9';",
    'm.d = /[\ud83d\ude00]/u;',
    'm.e = `caf\u00e9 \u2019`;',
    '// \u201cnote\u201d',
  ].join('\n')
  expect(source).toMatch(/[^\0-\x7f]/)
  const escaped = asciiOnly(source, 'x.js')
  expect(escaped.match(/[^\0-\x7f]/g) ?? []).toEqual([])
  const evaluate = (code: string) => {
    const m: Record<string, unknown> = {}
    new Function('m', code)(m)
    return m
  }
  const before = evaluate(source)
  const after = evaluate(escaped)
  for (const key of ['c', 'e']) expect(after[key]).toBe(before[key])
  const probes = ['\u2019s', "'s", 'caf\u00e9', '\u00e9\u2019', '\ud83d\ude00', '\ud83d', 'x']
  for (const key of ['a', 'b', 'd']) {
    const [was, is] = [before[key], after[key]] as [RegExp, RegExp]
    expect(is.flags).toBe(was.flags)
    expect(probes.map((p) => is.test(p))).toEqual(probes.map((p) => was.test(p)))
  }
  expect(asciiOnly('\ufeffexport const a = 1', 'x.js')).toBe('export const a = 1')
  expect(() => asciiOnly('const a = String.raw`\u00e9`', 'x.js')).toThrow(/raw text of a template/)
  expect(() => asciiOnly("const a = 'a\\\u2028b'", 'x.js')).toThrow(/U\+2028/)
})
